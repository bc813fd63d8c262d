package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzMetaTools throws arbitrary argument objects at the three meta-tools
// of a gateway with a live upstream. Whatever the arguments, a tool must
// not panic, must answer (never a Go error: a model reads tool errors),
// and a gateway error must be a short JSON object with an "error" text
// and an error code. The committed corpus in testdata/fuzz/FuzzMetaTools
// holds the hostile cases (wrong types, deep nesting, huge numbers,
// regex bombs, invalid UTF-8, ...); `go test` runs it every time.
//
//	go test -fuzz FuzzMetaTools ./gateway/
func FuzzMetaTools(f *testing.F) {
	v := fuzzView(f)
	for _, seed := range []struct {
		tool byte
		args string
	}{
		{0, `{}`}, {0, `{"query":"add numbers"}`}, {0, `{"domain":"rich","query":"page:2"}`},
		{1, `{"tool_name":"rich.add"}`}, {1, `{"tool_names":["rich.add","nope"]}`},
		{2, `{"tool_name":"rich.add","arguments":{"a":1,"b":2}}`}, {2, `{"tool_name":"rich.add","arguments":{"a":"x"}}`},
	} {
		f.Add(seed.tool, seed.args)
	}
	handlers := []struct {
		name string
		call func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error)
	}{
		{DiscoverToolsName, v.discoverTools},
		{GetToolSchemaName, v.getToolSchema},
		{ExecuteToolName, v.executeTool},
	}
	f.Fuzz(func(t *testing.T, tool byte, args string) {
		h := handlers[int(tool)%len(handlers)]
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: h.name, Arguments: json.RawMessage(args)}}
		res, err := h.call(ctx, req)
		if err != nil {
			t.Fatalf("%s(%q) returned a Go error: %v", h.name, clip(args), err)
		}
		if res == nil {
			t.Fatalf("%s(%q) returned no result", h.name, args)
		}
		if !res.IsError {
			return
		}
		if res.Meta[ErrorMetaKey] == nil {
			if h.name == ExecuteToolName {
				return // the upstream tool's own error, passed on as it is
			}
			t.Fatalf("%s(%q): an error without an error code: %+v", h.name, clip(args), res)
		}
		if len(res.Content) != 1 {
			t.Fatalf("%s(%q): error with %d content blocks", h.name, clip(args), len(res.Content))
		}
		text := res.Content[0].(*mcp.TextContent).Text
		var body struct{ Error string }
		if err := json.Unmarshal([]byte(text), &body); err != nil || body.Error == "" {
			t.Fatalf("%s(%q): error text is not {\"error\": ...}: %q", h.name, clip(args), text)
		}
		if !utf8.ValidString(body.Error) {
			t.Fatalf("%s(%q): error text is not valid UTF-8: %q", h.name, clip(args), body.Error)
		}
		if len(text) > 8000 {
			t.Fatalf("%s(%q): a %d-byte error for the model", h.name, clip(args), len(text))
		}
	})
}

// fuzzView starts a quiet gateway over one live upstream and returns its
// view, for calling the meta-tools' handlers directly.
func fuzzView(tb testing.TB) *view {
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return richServer() }, nil))
	tb.Cleanup(ts.Close)
	up := NewUpstream(httpUpstream("rich", ts.URL).Connection, UpstreamOptions{Discovery: true})
	g, err := New(Config{Upstreams: []*UpstreamConfig{httpUpstream("rich", ts.URL)}}, []*Upstream{up}, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { g.Close(); up.Close() })
	<-g.Started()
	g.viewsMu.RLock()
	defer g.viewsMu.RUnlock()
	return g.views[0]
}

// clip shortens a fuzz input for a failure message.
func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}
