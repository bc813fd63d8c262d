package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostileHTTPUpstream is a real MCP server (answering with plain JSON
// bodies) behind a front that, for calls to the tools "garbage", "huge"
// and "wrong_id", answers with a body that is not JSON-RPC, with a body
// over MaxUpstreamMessage, or with a response to another request.
func hostileHTTPUpstream(t *testing.T) *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "hostile"}, nil)
	addTextTool(s, "ok", "Behave.", "fine")
	for _, name := range []string{"garbage", "huge", "wrong_id"} {
		addTextTool(s, name, "Misbehave.", "never sent")
	}
	return frontedUpstream(t, s, func(w http.ResponseWriter, id json.RawMessage, tool string) bool {
		w.Header().Set("Content-Type", "application/json")
		switch tool {
		case "garbage":
			io.WriteString(w, "<html>502 Bad Gateway</html>\x00\xff")
		case "huge":
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"content":[{"type":"text","text":"`)
			chunk := bytes.Repeat([]byte("A"), 1<<20)
			for range MaxUpstreamMessage>>20 + 4 {
				if _, err := w.Write(chunk); err != nil {
					return true
				}
			}
			io.WriteString(w, `"}]}}`)
		case "wrong_id":
			io.WriteString(w, `{"jsonrpc":"2.0","id":987654321,"result":{"content":[]}}`)
		default:
			return false
		}
		return true
	})
}

// frontedUpstream serves s (answering with plain JSON bodies) behind a
// front that lets misbehave answer each tools/call first: with the call's
// ID and tool name, it writes its own answer and says so, or writes
// nothing and lets s answer.
func frontedUpstream(t *testing.T, s *mcp.Server, misbehave func(w http.ResponseWriter, id json.RawMessage, tool string) bool) *httptest.Server {
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &msg)
		if msg.Method != "tools/call" || !misbehave(w, msg.ID, msg.Params.Name) {
			inner.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(ts.Close)
	return ts
}

// addHostileStdioTools adds tools to the stdio test server (see TestMain)
// that write a line of garbage, or a line over MaxUpstreamMessage, to
// stdout before answering.
func addHostileStdioTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "garbage", Description: "Misbehave."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		os.Stdout.WriteString("this is not JSON-RPC {]\n")
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "after garbage"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "huge", Description: "Misbehave."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		os.Stdout.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + strings.Repeat("A", MaxUpstreamMessage+1024) + "\"}}\n")
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "after huge"}}}, nil, nil
	})
}

// TestHostileUpstreamsCannotHurtTheGateway: malformed JSON-RPC, oversized
// messages and responses to requests never made, from HTTP and stdio
// upstreams, fail the call they came with (clearly, as a gateway error)
// and nothing else: the other upstream keeps working, and the hostile one
// is reconnected (or restarted) and works again.
func TestHostileUpstreamsCannotHurtTheGateway(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	stdio := &UpstreamConfig{Name: "local", Connection: Connection{
		Command: exe,
		Args:    []string{"-test.run=^$"},
		Env:     map[string]string{stdioServerEnv: "hostile"},
		Timeout: Duration(5e9),
	}}
	web := httpUpstream("web", hostileHTTPUpstream(t).URL)
	web.Timeout = Duration(2e9) // wrong_id's call waits for an answer that never comes
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{
		web,
		stdio,
		httpUpstream("rich", serveHTTP(t, richServer()).URL),
	}})
	good := map[string]string{"web": "fine", "local": "stdio says hi"}
	goodTool := map[string]string{"web": "ok", "local": "echo"}
	for _, c := range []struct{ domain, tool string }{
		{"web", "garbage"}, {"web", "huge"}, {"web", "wrong_id"},
		{"local", "garbage"}, {"local", "huge"},
	} {
		name := c.domain + "." + c.tool
		res := tg.call(t, ExecuteToolName, map[string]any{"tool_name": name})
		if !res.IsError || res.Meta[ErrorMetaKey] == nil {
			// A stdio server's garbage line may be skipped by a lenient
			// reader; then the call must simply have succeeded.
			if c.domain != "local" || res.IsError {
				t.Errorf("%s: %s (meta %v), want a gateway error", name, text(res), res.Meta)
			}
		}
		if len(text(res)) > 1000 {
			t.Errorf("%s: a %d-byte error reached the client", name, len(text(res)))
		}
		if got := text(tg.call(t, ExecuteToolName, map[string]any{"tool_name": "rich.add", "arguments": map[string]any{"a": 1, "b": 1}})); got != "2" {
			t.Errorf("after %s, the healthy upstream answers %q", name, got)
		}
		waitFor(t, c.domain+" working again after "+name, func() bool {
			res := tg.call(t, ExecuteToolName, map[string]any{"tool_name": c.domain + "." + goodTool[c.domain]})
			return !res.IsError && text(res) == good[c.domain]
		})
	}
}
