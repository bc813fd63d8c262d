package gateway

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGroupListingsAreBounded: every tool may declare a group of its own,
// so an upstream chooses how many groups its domain has. discover_tools'
// table of contents, which every model reads first, lists a bounded
// number of them however many there are, and says how to see the rest.
func TestGroupListingsAreBounded(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "sprawl"}, nil)
	const tools = 400
	for i := range tools {
		group := fmt.Sprintf("topic_%03d_with_a_long_name_to_fill_the_model_context_window", i)
		s.AddTool(&mcp.Tool{Name: fmt.Sprintf("tool_%03d", i), Description: "Do a thing.", InputSchema: map[string]any{"type": "object"},
			Meta: mcp.Meta{metaGroupsKey: group}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("sprawl", serveHTTP(t, s).URL)}})
	if n := len(tg.Catalog().Domain("sprawl").Groups); n != tools {
		t.Fatalf("the domain has %d groups, want %d", n, tools)
	}
	res := tg.call(t, DiscoverToolsName, map[string]any{})
	listing := callJSON[domainsResponse](t, tg, DiscoverToolsName, map[string]any{})
	if n := len(listing.Domains[0].Groups); n > maxListedGroups {
		t.Errorf("the table of contents lists %d groups (%d bytes), want at most %d", n, len(text(res)), maxListedGroups)
	}
	if !strings.Contains(listing.Note, "sprawl") || !strings.Contains(listing.Note, fmt.Sprint(tools)) {
		t.Errorf("the note does not say the listing of sprawl's %d groups is cut: %q", tools, listing.Note)
	}
}
