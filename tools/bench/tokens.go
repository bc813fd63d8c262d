package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/caddy-mcp/mcp-gateway/internal/gencatalog"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/livemcpbench"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tiktoken-go/tokenizer"
)

// catalog is a set of upstream servers to measure context cost on, and
// search queries a model might send for it.
type catalog struct {
	name    string // "livemcpbench", "generated"
	label   string // for the report
	servers []*livemcpbench.Server
	queries []string
}

func (c catalog) tools() int {
	n := 0
	for _, s := range c.servers {
		n += len(s.Tools)
	}
	return n
}

// liveMCPBenchCatalog is the 527 real tools of LiveMCPBench, with the short
// everyday requests as queries.
func liveMCPBenchCatalog() (catalog, error) {
	servers, err := livemcpbench.Servers("")
	if err != nil {
		return catalog{}, err
	}
	tasks, err := livemcpbench.Tasks(livemcpbench.ShortTasks)
	if err != nil {
		return catalog{}, err
	}
	c := catalog{name: "livemcpbench", servers: servers}
	for _, t := range tasks {
		c.queries = append(c.queries, t.Query)
	}
	c.label = fmt.Sprintf("LiveMCPBench (%d tools, %d servers)", c.tools(), len(servers))
	return c, nil
}

// generatedCatalog is a generated catalog of n tools (see gencatalog).
func generatedCatalog(n int) catalog {
	services, tools := gencatalog.Generate(n, 1)
	byName := map[string]*livemcpbench.Server{}
	c := catalog{name: "generated"}
	for _, s := range services {
		srv := &livemcpbench.Server{Domain: livemcpbench.DomainName(s.Name), Name: s.Name, Description: s.Description}
		byName[s.Name] = srv
		c.servers = append(c.servers, srv)
	}
	for _, t := range tools {
		schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
		for p, d := range t.Params {
			schema.Properties[p] = &jsonschema.Schema{Type: "string", Description: d}
		}
		srv := byName[t.Domain]
		srv.Tools = append(srv.Tools, &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	c.queries = gencatalog.Queries(services, 50, 2)
	c.label = fmt.Sprintf("generated (%d tools, %d servers)", c.tools(), len(c.servers))
	return c
}

// serveCatalogs serves every catalog's servers over streamable HTTP on a
// loopback port, at /<catalog>/<domain>/mcp, and returns the address.
func serveCatalogs(catalogs []catalog) (string, func(), error) {
	mux := http.NewServeMux()
	for _, c := range catalogs {
		mux.Handle("/"+c.name+"/", http.StripPrefix("/"+c.name, livemcpbench.Handler(c.servers)))
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(l)
	return l.Addr().String(), func() { srv.Close() }, nil
}

// catalogSite is the Caddy site body for a meta-mode gateway at
// /<catalog>/meta and a passthrough one at /<catalog>/pt per catalog.
func catalogSite(catalogs []catalog, addr string) string {
	var b strings.Builder
	for _, c := range catalogs {
		var ups []string
		for _, s := range c.servers {
			ups = append(ups, fmt.Sprintf("upstream %s http://%s/%s/%s/mcp", s.Domain, addr, c.name, s.Domain))
		}
		b.WriteString(gatewayBlock("/"+c.name+"/meta", c.name+"-meta", "meta", ups))
		b.WriteString(gatewayBlock("/"+c.name+"/pt", c.name+"-pt", "passthrough", ups))
	}
	return b.String()
}

// tokenResult is what a model's context holds for a catalog, in tokens.
type tokenResult struct {
	catalog          string
	tools            int
	metaList         int // tools/list in meta mode
	passthroughList  int // tools/list in passthrough mode, every page
	discoverDomains  int // discover_tools()
	discoverDomain   int // discover_tools(domain=...), median over domains
	discoverSearch   int // discover_tools(query=...), median over queries
	getSchema        int // get_tool_schema(tool_name=...), median over tools
	queries, schemas int // how many medians were taken over
}

// measureTokens asks the catalog's gateways for what a model would read
// and counts its tokens with o200k_base.
func measureTokens(gw *caddy, c catalog) (tokenResult, error) {
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return tokenResult{}, err
	}
	count := func(s string) int { n, _ := enc.Count(s); return n }
	ctx := context.Background()
	meta, err := httpSession(ctx, gw.url("/"+c.name+"/meta"))
	if err != nil {
		return tokenResult{}, err
	}
	defer meta.Close()
	pt, err := httpSession(ctx, gw.url("/"+c.name+"/pt"))
	if err != nil {
		return tokenResult{}, err
	}
	defer pt.Close()

	r := tokenResult{catalog: c.label, tools: c.tools()}
	listTokens := func(s *mcp.ClientSession) (int, int, error) {
		var tools []*mcp.Tool
		for t, err := range s.Tools(ctx, nil) {
			if err != nil {
				return 0, 0, err
			}
			tools = append(tools, t)
		}
		b, err := json.Marshal(&mcp.ListToolsResult{Tools: tools})
		return count(string(b)), len(tools), err
	}
	if r.metaList, _, err = listTokens(meta); err != nil {
		return r, err
	}
	var listed int
	if r.passthroughList, listed, err = listTokens(pt); err != nil {
		return r, err
	}
	if listed != r.tools {
		return r, fmt.Errorf("%s: passthrough lists %d tools of %d", c.name, listed, r.tools)
	}
	call := func(tool string, args map[string]any) (int, error) {
		res, err := meta.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return 0, err
		}
		if res.IsError {
			return 0, fmt.Errorf("%s %v: %v", tool, args, res.Content[0].(*mcp.TextContent).Text)
		}
		return count(res.Content[0].(*mcp.TextContent).Text), nil
	}
	median := func(args []map[string]any, tool string) (int, error) {
		var ns []int
		for _, a := range args {
			n, err := call(tool, a)
			if err != nil {
				return 0, err
			}
			ns = append(ns, n)
		}
		slices.Sort(ns)
		return ns[len(ns)/2], nil
	}
	if r.discoverDomains, err = call("discover_tools", nil); err != nil {
		return r, err
	}
	var domains, queries, schemas []map[string]any
	for i, s := range c.servers {
		if i < 20 {
			domains = append(domains, map[string]any{"domain": s.Domain})
		}
		if len(schemas) < 20 && len(s.Tools) > 0 {
			schemas = append(schemas, map[string]any{"tool_name": s.Domain + "." + s.Tools[0].Name})
		}
	}
	for _, q := range c.queries {
		queries = append(queries, map[string]any{"query": q})
	}
	if r.discoverDomain, err = median(domains, "discover_tools"); err != nil {
		return r, err
	}
	if r.discoverSearch, err = median(queries, "discover_tools"); err != nil {
		return r, err
	}
	if r.getSchema, err = median(schemas, "get_tool_schema"); err != nil {
		return r, err
	}
	r.queries, r.schemas = len(queries), len(schemas)
	return r, nil
}
