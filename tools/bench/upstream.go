package main

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// echoServer is the upstream every latency benchmark calls: one tool,
// "echo", that answers with its text argument. It is as cheap as a tool can
// be, so what is measured is the path to it.
func echoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-echo", Version: "1"}, nil)
	type args struct {
		Text string `json:"text" jsonschema:"the text to send back"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Answer with the text given."}, func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	return s
}

// serveEchoHTTP serves echoServer over stateless streamable HTTP with
// event-stream answers (the SDKs' default, so what most servers send, and
// the form whose end a client must read for its connection to be reused)
// at every path but connsPath, where it answers how many TCP connections it has accepted
// (see connCounter).
func serveEchoHTTP(addr string) error {
	s := echoServer()
	var conns connCounter
	mux := http.NewServeMux()
	mux.Handle(connsPath, &conns)
	mux.Handle("/", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	srv := &http.Server{Addr: addr, Handler: mux, ConnState: conns.connState}
	return srv.ListenAndServe()
}

// serveEchoStdio serves echoServer over stdin and stdout.
func serveEchoStdio() error {
	return echoServer().Run(context.Background(), &mcp.StdioTransport{})
}
