package gateway

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// richServer's tools return every kind of content, structured content, and
// a tool error, so results can be compared with a direct call.
func richServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "rich"}, nil)
	s.AddTool(&mcp.Tool{
		Name:         "everything",
		Description:  "Return one block of every content type.",
		InputSchema:  map[string]any{"type": "object"},
		OutputSchema: map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}},
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			Meta: mcp.Meta{"upstream/trace": "abc"},
			Content: []mcp.Content{
				&mcp.TextContent{Text: "hello"},
				&mcp.ImageContent{Data: []byte{0x89, 'P', 'N', 'G'}, MIMEType: "image/png"},
				&mcp.AudioContent{Data: []byte("RIFF"), MIMEType: "audio/wav"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "contents"}},
				&mcp.ResourceLink{URI: "file:///b.txt", Name: "b.txt"},
			},
			StructuredContent: map[string]any{"n": 42},
		}, nil
	})
	s.AddTool(&mcp.Tool{
		Name:        "fail",
		Description: "Always fails as a tool.",
		InputSchema: map[string]any{"type": "object"},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "the disk is full"}}}, nil
	})
	s.AddTool(&mcp.Tool{
		Name:        "add",
		Description: "Add two integers.",
		InputSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "integer"}},
			"required":   []string{"a", "b"},
		},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct{ A, B int }
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: itoa(args.A + args.B)}}}, nil
	})
	return s
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestExecuteResultIsFaithful(t *testing.T) {
	ts := serveHTTP(t, richServer())
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("rich", ts.URL)}})

	direct, err := mcp.NewClient(&mcp.Implementation{Name: "direct"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	want, err := direct.CallTool(context.Background(), &mcp.CallToolParams{Name: "everything"})
	if err != nil {
		t.Fatal(err)
	}
	got := tg.call(t, ExecuteToolName, map[string]any{"tool_name": "rich.everything"})
	// The MCP server may add protocol metadata of its own to _meta; all
	// else must be exactly what the upstream sent.
	for _, part := range []struct {
		name      string
		got, want any
	}{
		{"content", got.Content, want.Content},
		{"structuredContent", got.StructuredContent, want.StructuredContent},
		{"isError", got.IsError, want.IsError},
		{"_meta upstream/trace", got.Meta["upstream/trace"], want.Meta["upstream/trace"]},
	} {
		if g, w := mustJSON(part.got), mustJSON(part.want); string(g) != string(w) {
			t.Errorf("%s through the gateway:\n%s\ndirect:\n%s", part.name, g, w)
		}
	}
	if _, ok := got.Content[1].(*mcp.ImageContent); !ok {
		t.Errorf("second block is %T, want an image", got.Content[1])
	}
}

func TestExecuteToolErrorIsTheUpstreams(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("rich", serveHTTP(t, richServer()).URL)}})
	res := tg.call(t, ExecuteToolName, map[string]any{"tool_name": "rich.fail"})
	if !res.IsError || text(res) != "the disk is full" {
		t.Errorf("tool error = %+v, want the upstream's isError result unchanged", res)
	}
	if _, marked := res.Meta[ErrorMetaKey]; marked {
		t.Error("a tool's own error is marked as a gateway error")
	}
}

func TestExecuteArgumentErrors(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("rich", serveHTTP(t, richServer()).URL)}})
	for _, tc := range []struct {
		name string
		args any
		code ErrorCode
		want []string
	}{
		{"missing tool_name", map[string]any{}, ErrInvalidArguments, []string{"needs 'tool_name'", `"tool_name": "domain.tool"`}},
		{"empty tool_name", map[string]any{"tool_name": " "}, ErrInvalidArguments, []string{"non-empty 'tool_name'"}},
		{"arguments a string", map[string]any{"tool_name": "rich.add", "arguments": `{"a":1}`}, ErrInvalidArguments, []string{"'arguments' must be a JSON object, got a string"}},
		{"arguments an array", map[string]any{"tool_name": "rich.add", "arguments": []int{1, 2}}, ErrInvalidArguments, []string{"got an array"}},
		{"wrong argument type", map[string]any{"tool_name": "rich.add", "arguments": map[string]any{"a": "one", "b": 2}}, ErrInvalidArguments, []string{`Invalid arguments for 'rich.add': a: must be an integer, got "one".`, `Its input schema is in "schema".`}},
		{"missing required argument", map[string]any{"tool_name": "rich.add", "arguments": map[string]any{"a": 1}}, ErrInvalidArguments, []string{`Invalid arguments for 'rich.add': missing required argument "b".`}},
		{"unknown meta argument", map[string]any{"tool_name": "rich.add", "args": map[string]any{}}, ErrInvalidArguments, []string{"no argument 'args' (did you mean 'arguments'?)", "tool_name, arguments"}},
		{"meta argument in another case", map[string]any{"toolName": "rich.add"}, ErrInvalidArguments, []string{"no argument 'toolName' (did you mean 'tool_name'?)"}},
		{"misspelled tool", map[string]any{"tool_name": "rich.everythng"}, ErrUnknownTool, []string{"Unknown tool 'rich.everythng'", "Did you mean 'rich.everything'", "discover_tools"}},
		{"unknown tool", map[string]any{"tool_name": "zzzz"}, ErrUnknownTool, []string{"Unknown tool 'zzzz'. Use discover_tools"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := callError(t, tg, ExecuteToolName, tc.args, tc.code)
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
	// The gateway still serves after all that.
	if got := text(tg.call(t, ExecuteToolName, map[string]any{"tool_name": "rich.add", "arguments": map[string]any{"a": 2, "b": 3}})); got != "5" {
		t.Errorf("add(2, 3) = %q", got)
	}
}

func TestGetToolSchema(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("rich", serveHTTP(t, richServer()).URL)}})
	got := callJSON[map[string]any](t, tg, GetToolSchemaName, map[string]any{"tool_name": "rich.everything"})
	if got["name"] != "rich.everything" || got["domain"] != "rich" || got["description"] != "Return one block of every content type." {
		t.Errorf("schema = %v", got)
	}
	if params, _ := got["parameters"].(map[string]any); params["type"] != "object" {
		t.Errorf("parameters = %v", got["parameters"])
	}
	if out, _ := got["output_schema"].(map[string]any); out["type"] != "object" {
		t.Errorf("output_schema = %v, want the upstream's", got["output_schema"])
	}
	if ann, _ := got["annotations"].(map[string]any); ann["readOnlyHint"] != true {
		t.Errorf("annotations = %v", got["annotations"])
	}
	plain := callJSON[map[string]any](t, tg, GetToolSchemaName, map[string]any{"tool_name": "rich.fail"})
	if _, ok := plain["output_schema"]; ok {
		t.Error("output_schema shown for a tool without one")
	}
	msg := callError(t, tg, GetToolSchemaName, map[string]any{"tool_name": "rich.ad"}, ErrUnknownTool)
	if !strings.Contains(msg, "Did you mean 'rich.add'") {
		t.Errorf("misspelled schema lookup = %q", msg)
	}
	callError(t, tg, GetToolSchemaName, map[string]any{}, ErrInvalidArguments)
}

func TestSameToolNameInTwoDomains(t *testing.T) {
	a := mcp.NewServer(&mcp.Implementation{Name: "a"}, nil)
	addTextTool(a, "search", "Search the wiki.", "from wiki")
	b := mcp.NewServer(&mcp.Implementation{Name: "b"}, nil)
	addTextTool(b, "search", "Search the tickets.", "from tickets")
	addTextTool(b, "close_ticket", "Close a ticket.", "closed")
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("wiki", serveHTTP(t, a).URL), httpUpstream("tickets", serveHTTP(t, b).URL)}})

	for name, want := range map[string]string{
		"wiki.search":           "from wiki",
		"tickets.search":        "from tickets",
		"wiki_search":           "from wiki",
		"tickets/search":        "from tickets",
		"Tickets.Search":        "from tickets",
		"close_ticket":          "closed", // bare, in one domain only
		"tickets__close_ticket": "closed",
	} {
		if got := text(tg.call(t, ExecuteToolName, map[string]any{"tool_name": name})); got != want {
			t.Errorf("execute %q = %q, want %q", name, got, want)
		}
	}
	msg := callError(t, tg, ExecuteToolName, map[string]any{"tool_name": "search"}, ErrUnknownTool)
	if !strings.Contains(msg, "several domains: wiki.search, tickets.search") {
		t.Errorf("ambiguous bare name error = %q", msg)
	}
}

func TestUpstreamDownAtStart(t *testing.T) {
	// A port nothing listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{
		httpUpstream("rich", serveHTTP(t, richServer()).URL),
		httpUpstream("dead", deadURL),
	}})
	got := callJSON[domainsResponse](t, tg, DiscoverToolsName, nil)
	if got.Domains[1].Status != "unavailable" || got.Domains[0].Status != "" {
		t.Errorf("domains = %+v, want dead unavailable and rich fine", got.Domains)
	}
	if !strings.Contains(got.Note, "Temporarily unavailable: dead") {
		t.Errorf("note = %q", got.Note)
	}
	dom := callJSON[domainResponse](t, tg, DiscoverToolsName, map[string]any{"domain": "dead"})
	if dom.Status != "unavailable" || !strings.Contains(dom.Note, "temporarily unavailable") {
		t.Errorf("dead domain = %+v", dom)
	}
	if strings.Contains(string(mustJSON(got))+string(mustJSON(dom)), l.Addr().String()) {
		t.Error("the internal address of an upstream reaches the client")
	}
	if got := text(tg.call(t, ExecuteToolName, map[string]any{"tool_name": "rich.add", "arguments": map[string]any{"a": 1, "b": 1}})); got != "2" {
		t.Errorf("the live upstream does not answer: %q", got)
	}
}

func TestUpstreamGoesDownAfterStart(t *testing.T) {
	ts := serveHTTP(t, richServer())
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("rich", ts.URL)}})
	ts.CloseClientConnections()
	ts.Close()
	// The catalog keeps the last known tools; calls fail fast, clearly.
	deadline := time.Now().Add(30 * time.Second)
	for {
		res := tg.call(t, ExecuteToolName, map[string]any{"tool_name": "rich.add", "arguments": map[string]any{"a": 1, "b": 1}})
		if res.IsError {
			if res.Meta[ErrorMetaKey] != string(ErrUnavailable) && res.Meta[ErrorMetaKey] != string(ErrUpstream) {
				t.Fatalf("error = %v %s", res.Meta, text(res))
			}
			if res.Meta[ErrorMetaKey] == string(ErrUnavailable) {
				if !strings.Contains(text(res), "temporarily unavailable: upstream server 'rich' is unreachable. Other domains are still available.") {
					t.Errorf("unavailable error = %s", text(res))
				}
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("calls to a dead upstream never fail as unavailable")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The catalog follows the upstream's state, off the request path.
	for {
		dom := callJSON[domainResponse](t, tg, DiscoverToolsName, map[string]any{"domain": "rich"})
		if dom.Status == "unavailable" {
			if len(dom.Tools) != 3 || !strings.Contains(dom.Note, "last known tools") {
				t.Errorf("dead domain = %+v, want its 3 last known tools and a note", dom)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("dead domain = %+v, never marked unavailable", dom)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }
