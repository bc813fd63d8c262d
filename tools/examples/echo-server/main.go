// Command echo-server is a small MCP server for trying the gateway's
// security settings: it answers with what it received, so you can see
// which headers reach an upstream and who the gateway says is calling.
//
//	echo-server -http 127.0.0.1:9102      streamable HTTP at /mcp
//
// Tools: echo (returns its text), headers (returns the HTTP headers of the
// request that carried the call), admin_reset (a stand-in for a dangerous
// tool that policies should hide).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"log"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	addr := flag.String("http", "127.0.0.1:9102", "listen address; the MCP endpoint is /mcp")
	flag.Parse()
	s := newServer()
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	log.Printf("echo-server at http://%s/mcp", *addr)
	log.Fatal(http.ListenAndServe(*addr, mux))
}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo-server", Version: "1.0.0"}, &mcp.ServerOptions{
		Instructions: "Echoes what it receives: text, and the HTTP headers of each call.",
	})
	s.AddTool(&mcp.Tool{
		Name:        "echo",
		Description: "Return the given text unchanged.",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []string{"text"}},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct{ Text string }
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return nil, err
		}
		return text(args.Text), nil
	})
	s.AddTool(&mcp.Tool{
		Name:        "headers",
		Description: "Return the HTTP request headers that reached this server with the call, as JSON.",
		InputSchema: map[string]any{"type": "object"},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		got := map[string]string{}
		if req.Extra != nil {
			for k, vs := range req.Extra.Header {
				got[k] = strings.Join(vs, ", ")
			}
		}
		b, _ := json.Marshal(got) // map keys marshal sorted
		return text(string(b)), nil
	})
	s.AddTool(&mcp.Tool{
		Name:        "admin_reset",
		Description: "Reset everything (a stand-in for a dangerous admin tool).",
		InputSchema: map[string]any{"type": "object"},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("reset done"), nil
	})
	return s
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
