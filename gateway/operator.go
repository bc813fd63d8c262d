package gateway

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Discover runs discover_tools for an operator over the whole catalog (no
// access rule applies) with args (its arguments: query, domain, group),
// and returns the answer's text exactly as a model would get it, and
// whether it is an error. Operator searches are not counted or logged as
// the model's are.
func (g *Gateway) Discover(ctx context.Context, args map[string]any) (text string, isError bool) {
	v := &view{g: g, operator: true}
	v.catalog.Store(g.Catalog())
	raw, err := json.Marshal(args)
	if err != nil {
		return err.Error(), true
	}
	res, _ := v.discoverTools(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: DiscoverToolsName, Arguments: raw}})
	if res == nil || len(res.Content) == 0 {
		return "", true
	}
	tc, _ := res.Content[0].(*mcp.TextContent)
	if tc == nil {
		return "", true
	}
	return tc.Text, res.IsError
}

// Refresh has every upstream read its lists again now, and a down one try
// to reconnect at once.
func (g *Gateway) Refresh() {
	for _, u := range g.current().upstreams {
		u.Refresh()
	}
}

// Refresh has the upstream read its lists again now (a discovery
// connection), or try to reconnect at once if it is down.
func (u *Upstream) Refresh() {
	select {
	case u.refresh <- struct{}{}:
	default:
	}
	u.RetrySoon()
}
