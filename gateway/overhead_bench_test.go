package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchEchoUpstream serves an echo tool over stateless streamable HTTP with
// JSON responses (as the bench program's upstream does).
func benchEchoUpstream(b *testing.B) *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo"}, nil)
	type args struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo."}, func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	b.Cleanup(ts.Close)
	return ts
}

// BenchmarkCallDirect calls the echo upstream straight; BenchmarkCallExecuteTool
// calls it through the gateway over an in-memory client connection, so the
// difference is the gateway's own work (no client-side HTTP hop).
//
//	go test -run '^$' -bench Call -benchtime 3s ./gateway/
func BenchmarkCallDirect(b *testing.B) {
	ts := benchEchoUpstream(b)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "b"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}
	b.ResetTimer()
	for b.Loop() {
		if _, err := cs.CallTool(context.Background(), params); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCallExecuteTool(b *testing.B) {
	ts := benchEchoUpstream(b)
	up := NewUpstream(httpUpstream("e", ts.URL).Connection, UpstreamOptions{Discovery: true})
	g, err := New(Config{Upstreams: []*UpstreamConfig{httpUpstream("e", ts.URL)}}, []*Upstream{up}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { g.Close(); up.Close() }()
	<-g.Started()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := g.Server().Connect(context.Background(), st, nil); err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "b"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "execute_tool", Arguments: map[string]any{"tool_name": "e.echo", "arguments": map[string]any{"text": "hello"}}}
	b.ResetTimer()
	for b.Loop() {
		res, err := cs.CallTool(context.Background(), params)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}
