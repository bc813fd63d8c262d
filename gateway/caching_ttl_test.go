package gateway

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The 2026-07-28 revision requires a server's ttlMs to be >= 0: an
// upstream's negative ttlMs on a resource read reaches the client as 0
// (immediately stale, what a client makes of a negative one), not as sent.
func TestNegativeUpstreamTTLIsRelayedAsZero(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "files"}, nil)
	s.AddResource(&mcp.Resource{URI: "file:///neg", Name: "neg"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Cacheable: mcp.Cacheable{TTLMs: -5000},
			Contents: []*mcp.ResourceContents{{URI: "file:///neg", Text: "x"}}}, nil
	})
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("files", serveHTTP(t, s).URL)}})
	ts := serveEdge(t, tg, EdgeOptions{})
	_, answer := statelessRead(t, ts.URL, "file:///neg")
	res, _ := answer["result"].(map[string]any)
	if res == nil {
		t.Fatalf("no result: error %v", answer["error"] != nil)
	}
	if ttl, ok := res["ttlMs"].(float64); !ok || ttl < 0 {
		t.Errorf("ttlMs %v, want a number >= 0", res["ttlMs"])
	}
}
