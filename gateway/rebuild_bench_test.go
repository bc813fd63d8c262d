package gateway

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkRebuildCatalog is the cost of rebuilding the catalog of a
// gateway over one upstream of 2,000 tools with parameter descriptions
// (what every change of an upstream's state or lists costs, off the
// request path).
func BenchmarkRebuildCatalog(b *testing.B) {
	s := mcp.NewServer(&mcp.Implementation{Name: "many"}, nil)
	for i := range 2000 {
		s.AddTool(&mcp.Tool{
			Name:        fmt.Sprintf("tool_%04d_do_something", i),
			Description: fmt.Sprintf("Does thing number %d with the widgets of the account. Returns the widgets it changed.", i),
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{
				"account": map[string]any{"type": "string", "description": "The account whose widgets change."},
				"count":   map[string]any{"type": "integer", "description": "How many widgets to change, at most."},
			}},
		}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer ts.Close()
	cfg := &UpstreamConfig{Name: "many", Connection: Connection{URL: ts.URL, Timeout: Duration(10 * time.Second)}}
	up := NewUpstream(cfg.Connection, UpstreamOptions{Discovery: true})
	defer up.Close()
	g, err := New(Config{Upstreams: []*UpstreamConfig{cfg}}, []*Upstream{up}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	<-g.Started()
	if n := len(g.Catalog().Tools); n != 2000 {
		b.Fatalf("%d tools", n)
	}
	b.ResetTimer()
	for range b.N {
		g.rebuildCatalog()
	}
}
