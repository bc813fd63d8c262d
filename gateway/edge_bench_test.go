package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkEdgeCall calls the echo tool of an HTTP upstream (event-stream
// answers, sessions: the SDK's default server) over real loopback HTTP:
// direct, and through the gateway's edge with execute_tool and with a
// passthrough call, for a client of each protocol era; and discover_tools
// through the edge. Client, gateway
// and upstream share the process, so a route's allocations over direct's
// are the gateway's (its server side and its client side); upconns/op is
// the new TCP connections to the upstream per call.
//
//	go test -run '^$' -bench EdgeCall -benchmem ./gateway/
func BenchmarkEdgeCall(b *testing.B) {
	up, conns := countingServer(b, echoServer(), nil)
	args := map[string]any{"message": "hello"}
	eras := []struct{ name, version string }{{"2026-07-28", ""}, {"2025-11-25", "2025-11-25"}}
	b.Run("direct", func(b *testing.B) {
		benchCalls(b, up.URL, "", &mcp.CallToolParams{Name: "echo", Arguments: args}, conns)
	})
	for _, mode := range []string{ModeMeta, ModePassthrough} {
		edge := benchEdge(b, up.URL, mode)
		params := &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "echo.echo", "arguments": args}}
		if mode == ModePassthrough {
			params = &mcp.CallToolParams{Name: "echo_echo", Arguments: args}
		}
		for _, era := range eras {
			b.Run(mode+"/"+era.name, func(b *testing.B) { benchCalls(b, edge.URL, era.version, params, conns) })
		}
		if mode == ModeMeta {
			discover := &mcp.CallToolParams{Name: DiscoverToolsName, Arguments: map[string]any{"query": "say the message back"}}
			for _, era := range eras {
				b.Run("discover_tools/"+era.name, func(b *testing.B) { benchCalls(b, edge.URL, era.version, discover, conns) })
			}
		}
	}
}

// BenchmarkEdgeCallForwardingHeaders is BenchmarkEdgeCall's execute_tool
// call, by a client of 2025-11-25, to an upstream that forwards a client
// header (User-Agent, which the client sends): each call then carries
// headers of its own to the upstream.
//
//	go test -run '^$' -bench EdgeCallForwardingHeaders -benchmem ./gateway/
func BenchmarkEdgeCallForwardingHeaders(b *testing.B) {
	up, conns := countingServer(b, echoServer(), nil)
	upstream := httpUpstream("echo", up.URL)
	upstream.ForwardHeaders = []string{"User-Agent"}
	edge := benchEdgeOf(b, Config{Mode: ModeMeta, Upstreams: []*UpstreamConfig{upstream}})
	params := &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "echo.echo", "arguments": map[string]any{"message": "hello"}}}
	benchCalls(b, edge.URL, "2025-11-25", params, conns)
}

// benchEdge serves a gateway in mode in front of the upstream at url.
func benchEdge(b *testing.B, url, mode string) *httptest.Server {
	return benchEdgeOf(b, Config{Mode: mode, Upstreams: []*UpstreamConfig{httpUpstream("echo", url)}})
}

// benchEdgeOf serves a gateway of cfg, whose one upstream is HTTP.
func benchEdgeOf(b *testing.B, cfg Config) *httptest.Server {
	up := NewUpstream(cfg.Upstreams[0].Connection, UpstreamOptions{Discovery: true})
	g, err := New(cfg, []*Upstream{up}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { g.Close(); up.Close() })
	<-g.Started()
	e, err := g.NewEdge(EdgeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(e)
	b.Cleanup(ts.Close)
	return ts
}

// benchCalls has one client of protocol version (the newest if empty)
// call params at url back to back.
func benchCalls(b *testing.B, url, version string, params *mcp.CallToolParams, conns interface{ Load() int64 }) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	call := func() {
		p := *params
		p.Meta = nil // the SDK writes into the params it sends
		res, err := cs.CallTool(context.Background(), &p)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
	call()
	before := conns.Load()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		call()
	}
	b.ReportMetric(float64(conns.Load()-before)/float64(b.N), "upconns/op")
}
