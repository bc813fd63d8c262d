package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// askingServer is an upstream of an earlier revision (served with
// sessions) whose tools ask the client questions with requests of their
// own: ask_name elicits a name, ask_model samples, ask_roots lists roots.
func askingServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "asking"}, nil)
	obj := map[string]any{"type": "object"}
	s.AddTool(&mcp.Tool{Name: "ask_name", Description: "Ask the user's name.", InputSchema: obj},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + res.Content["name"].(string)}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "ask_model", Description: "Ask the client's model.", InputSchema: obj},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "say hi"}}}})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "model said " + res.Content.(*mcp.TextContent).Text}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "ask_roots", Description: "Ask the client's roots.", InputSchema: obj},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, err
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "roots " + strings.Join(uris, ",")}}}, nil
		})
	return s
}

// TestHeldCallCarriesAnEarlierUpstreamsQuestionsToAStatelessClient: a
// client of the stateless revision calls tools of an upstream of an
// earlier revision that ask with requests of their own; each question
// reaches the client as input_required, and its answer the waiting
// upstream request.
func TestHeldCallCarriesAnEarlierUpstreamsQuestionsToAStatelessClient(t *testing.T) {
	up := httpUpstream("asking", serveHTTP(t, askingServer()).URL)
	up.Session = SessionPerClient
	up.RelayRoots = true
	for _, mode := range []string{ModeMeta, ModePassthrough} {
		t.Run(mode, func(t *testing.T) {
			tg := startGateway(t, Config{Mode: mode, Upstreams: []*UpstreamConfig{up}})
			if v := tg.Catalog().Domain("asking").upstream.ProtocolVersion(); v >= StatelessRevision || v == "" {
				t.Fatalf("the upstream speaks %q; the test needs an earlier revision", v)
			}
			ts := serveEdge(t, tg, EdgeOptions{})
			client := mcp.NewClient(&mcp.Implementation{Name: "stateless"}, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
				},
				CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "hi there"}}, nil
				},
			})
			client.AddRoots(&mcp.Root{URI: "file:///work", Name: "work"})
			cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if v := cs.InitializeResult().ProtocolVersion; v != StatelessRevision {
				t.Fatalf("the client speaks %s", v)
			}
			for tool, want := range map[string]string{"ask_name": "hello Ada", "ask_model": "model said hi there", "ask_roots": "roots file:///work"} {
				name, args := "asking_"+tool, any(map[string]any{})
				if mode == ModeMeta {
					name, args = ExecuteToolName, map[string]any{"tool_name": "asking." + tool, "arguments": map[string]any{}}
				}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
				cancel()
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				if got := text(res); got != want {
					b, _ := json.Marshal(res)
					t.Errorf("%s answered %s, want %q", tool, b, want)
				}
			}
			if n := len(tg.held.byID); n != 0 {
				t.Errorf("%d held calls left after every call ended", n)
			}
		})
	}
}

// TestRefusedHeldCallEnds: a held call whose question the caller cannot
// answer (it lacks the capability) is refused, and ends: the upstream's
// question still waiting is answered with an error, so that its session
// closes and the gateway with it.
func TestRefusedHeldCallEnds(t *testing.T) {
	// The upstream's question is answered with an error, but the gateway
	// also closes the call's session, and the answer may come after the
	// session's end (DELETE). The go-sdk server's session then waits
	// for its handler, whose question no one will answer, and so would
	// this test's server at cleanup: its handler gives up on its own.
	s := mcp.NewServer(&mcp.Implementation{Name: "asking"}, nil)
	s.AddTool(&mcp.Tool{Name: "ask_model", Description: "Ask the client's model.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			if _, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "say hi"}}}}); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "answered"}}}, nil
		})
	up := httpUpstream("asking", serveHTTP(t, s).URL)
	up.Session = SessionPerClient
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{up}})
	ts := serveEdge(t, tg, EdgeOptions{})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "without-sampling"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "asking_ask_model", Arguments: map[string]any{}})
	cancel()
	cs.Close()
	if err == nil || !strings.Contains(err.Error(), "sampling") {
		t.Errorf("a call whose upstream asks a client without sampling: %v, want a refusal naming sampling", err)
	}
	closed := make(chan struct{})
	go func() {
		tg.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the gateway did not close: the refused call's upstream question is still waiting")
	}
}
