package livemcpbench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	// Some of LiveMCPBench's tools are described in Chinese: its gateway
	// has the glossary, as an operator of such a catalog is told to add.
	_ "github.com/caddy-mcp/mcp-gateway/search/cedict"
)

// InProcess is a gateway over the whole catalog, every server on its own
// loopback HTTP listener, all in this process: quick to start, for tests
// and ranking experiments. The benchmark command uses real processes.
type InProcess struct {
	Client    *mcp.ClientSession
	closers   []func()
	Upstreams []*gateway.Upstream
}

// StartInProcess starts the servers and a gateway in front of them.
func StartInProcess(servers []*Server) (*InProcess, error) {
	ip := &InProcess{}
	var cfg gateway.Config
	for _, s := range servers {
		ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return NewMCPServer(s) }, &mcp.StreamableHTTPOptions{Stateless: true}))
		ip.closers = append(ip.closers, ts.Close)
		u := &gateway.UpstreamConfig{Name: s.Domain, Connection: gateway.Connection{URL: ts.URL}}
		cfg.Upstreams = append(cfg.Upstreams, u)
		up := gateway.NewUpstream(u.Connection, gateway.UpstreamOptions{Discovery: true})
		ip.Upstreams = append(ip.Upstreams, up)
		ip.closers = append(ip.closers, func() { up.Close() })
	}
	g, err := gateway.New(cfg, ip.Upstreams, gateway.Options{})
	if err != nil {
		ip.Close()
		return nil, err
	}
	ip.closers = append(ip.closers, func() { g.Close() })
	select {
	case <-g.Started():
	case <-time.After(30 * time.Second):
		ip.Close()
		return nil, fmt.Errorf("upstreams did not start within 30s")
	}
	ct, st := mcp.NewInMemoryTransports()
	if _, err := g.Server().Connect(context.Background(), st, nil); err != nil {
		ip.Close()
		return nil, err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "livemcpbench"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		ip.Close()
		return nil, err
	}
	ip.Client = cs
	ip.closers = append(ip.closers, func() { cs.Close() })
	return ip, nil
}

// Close stops everything StartInProcess started.
func (ip *InProcess) Close() {
	for i := len(ip.closers) - 1; i >= 0; i-- {
		ip.closers[i]()
	}
}

// RankingQuerySuffix, appended to a request, asks discover_tools for ten
// results: the rankings the retrieval figures are computed on.
const RankingQuerySuffix = " limit:10"

// Discover runs discover_tools with query over session and returns the
// bare tool names of the results, best first.
func Discover(ctx context.Context, session *mcp.ClientSession, query string) ([]string, error) {
	refs, err := DiscoverRefs(ctx, session, query)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(refs))
	for i, r := range refs {
		names[i] = r.Name
	}
	return names, nil
}

// DiscoverRefs runs discover_tools with query over session and returns the
// results' domains and bare tool names, best first.
func DiscoverRefs(ctx context.Context, session *mcp.ClientSession, query string) ([]ToolRef, error) {
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: gateway.DiscoverToolsName, Arguments: map[string]any{"query": query}})
	if err != nil {
		return nil, err
	}
	text := ""
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	if res.IsError {
		return nil, fmt.Errorf("discover_tools(%q): %s", query, text)
	}
	var out struct {
		Results []struct {
			Name   string `json:"name"`
			Domain string `json:"domain"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		return nil, fmt.Errorf("discover_tools(%q): %v", query, err)
	}
	refs := make([]ToolRef, len(out.Results))
	for i, r := range out.Results {
		refs[i] = ToolRef{Domain: r.Domain, Name: strings.TrimPrefix(r.Name, r.Domain+".")}
	}
	return refs, nil
}
