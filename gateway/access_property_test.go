package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/caddy-mcp/mcp-gateway/search"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// Property tests of access rules: for random rules over random catalogs,
// an item the rule does not allow is observable through no surface, and a
// domain with nothing allowed is not named anywhere.

// randomDomain is one upstream of a generated catalog.
type randomDomain struct {
	name      string
	tools     []string
	prompts   []string
	resources []string
	templates []string
}

// Names are drawn from a few overlapping words, so that globs written from
// the same words hit and miss in every way.
var (
	domainWords = []string{"docs", "doc", "crm", "cr", "files"}
	itemWords   = []string{"search", "read", "delete", "list", "people_search", "page_delete", "notes"}
)

func randomCatalog(r *rand.Rand) []randomDomain {
	n := 1 + r.IntN(3)
	used := map[string]bool{}
	var out []randomDomain
	for len(out) < n {
		name := domainWords[r.IntN(len(domainWords))]
		if used[name] {
			continue
		}
		used[name] = true
		d := randomDomain{name: name}
		pick := func(k int, f func(w string) string) []string {
			seen := map[string]bool{}
			var names []string
			for range k {
				w := f(itemWords[r.IntN(len(itemWords))])
				if !seen[w] {
					seen[w] = true
					names = append(names, w)
				}
			}
			return names
		}
		d.tools = pick(r.IntN(4), func(w string) string { return w })
		d.prompts = pick(r.IntN(3), func(w string) string { return w })
		d.resources = pick(r.IntN(3), func(w string) string { return name + "://" + w + "/" + w + ".txt" })
		d.templates = pick(r.IntN(2), func(w string) string { return name + "://" + w + "/{id}" })
		out = append(out, d)
	}
	return out
}

// randomGlob builds a glob from the catalog's own words, wildcards and
// the kinds' spellings.
func randomGlob(r *rand.Rand) string {
	parts := []func() string{
		func() string { return domainWords[r.IntN(len(domainWords))] },
		func() string { return itemWords[r.IntN(len(itemWords))] },
		func() string { return "*" },
		func() string { return "?" },
		func() string { return "." },
		func() string { return []string{kindPrompt, kindResource, kindTemplate}[r.IntN(3)] },
		func() string { return "://" },
		func() string { return "_" },
	}
	var b strings.Builder
	for range 1 + r.IntN(4) {
		b.WriteString(parts[r.IntN(len(parts))]())
	}
	return b.String()
}

func randomRule(r *rand.Rand) AccessRule {
	var rule AccessRule
	for range r.IntN(3) {
		rule.Allow = append(rule.Allow, randomGlob(r))
	}
	for range r.IntN(3) {
		rule.Deny = append(rule.Deny, randomGlob(r))
	}
	return rule
}

// items lists a generated domain's items by qualified name.
func (d randomDomain) items() []string {
	var out []string
	for _, t := range d.tools {
		out = append(out, ItemName(d.name, "tool", t))
	}
	for _, p := range d.prompts {
		out = append(out, ItemName(d.name, "prompt", p))
	}
	for _, u := range d.resources {
		out = append(out, ItemName(d.name, "resource", u))
	}
	for _, u := range d.templates {
		out = append(out, ItemName(d.name, "template", u))
	}
	return out
}

func (d randomDomain) status() UpstreamStatus {
	st := UpstreamStatus{State: StateReady}
	for _, t := range d.tools {
		st.Tools = append(st.Tools, &mcp.Tool{Name: t, Description: "Tool " + t + ".", InputSchema: map[string]any{"type": "object"}})
	}
	for _, p := range d.prompts {
		st.Prompts = append(st.Prompts, &mcp.Prompt{Name: p, Description: "Prompt " + p + "."})
	}
	for _, u := range d.resources {
		st.Resources = append(st.Resources, &mcp.Resource{URI: u, Name: u})
	}
	for _, u := range d.templates {
		st.ResourceTemplates = append(st.ResourceTemplates, &mcp.ResourceTemplate{URITemplate: u, Name: u})
	}
	return st
}

// TestAccessRulesHideItemsInTheCatalog checks, for many random rules and
// catalogs, every surface built from the catalog: the catalog's tools and
// domains, each domain's prompts, resources and templates, what
// passthrough and hybrid mode expose, and the instructions.
func TestAccessRulesHideItemsInTheCatalog(t *testing.T) {
	r := rand.New(rand.NewPCG(20261125, 28))
	for i := range 3000 {
		domains := randomCatalog(r)
		rule := randomRule(r)
		var sources []domainSource
		var cfgs []*UpstreamConfig
		for _, d := range domains {
			cfg := &UpstreamConfig{Name: d.name, Connection: Connection{URL: "http://127.0.0.1:9/" + d.name}}
			cfgs = append(cfgs, cfg)
			st := d.status()
			var tools []vettedTool
			for _, t := range st.Tools {
				tools = append(tools, vettedTool{def: t, upstream: t.Name, local: t.Name})
			}
			sources = append(sources, domainSource{cfg: cfg, status: st, tools: tools})
		}
		c := buildCatalog(sources, rule, search.Options{})
		s := &setup{cfg: Config{Mode: ModePassthrough, Upstreams: cfgs}, rules: []AccessRule{rule}, byName: map[string]*UpstreamConfig{}}
		for _, cfg := range cfgs {
			s.byName[cfg.Name] = cfg
		}
		v := newView(&Gateway{logger: zap.NewNop()}, rule)
		v.catalog.Store(c)
		x := v.exposeIn(s, c, ModePassthrough)
		instructions := v.instructions(s)
		where := fmt.Sprintf("case %d, rule %+v", i, rule)

		for _, d := range domains {
			anyAllowed := false
			for _, item := range d.items() {
				if rule.Allows(item) {
					anyAllowed = true
					continue
				}
				if observable(c, x, item) {
					t.Fatalf("%s: hidden item %s is observable", where, item)
				}
			}
			visible := c.Domain(d.name) != nil
			if !anyAllowed && visible && !rule.allowsAll() && len(d.items()) > 0 {
				t.Fatalf("%s: domain %s has nothing allowed but is visible", where, d.name)
			}
			if anyAllowed && !visible {
				t.Fatalf("%s: domain %s has allowed items but is hidden", where, d.name)
			}
			if !visible && strings.Contains(instructions, "`"+d.name+"`") {
				t.Fatalf("%s: instructions name hidden domain %s:\n%s", where, d.name, instructions)
			}
		}
	}
}

// observable reports whether an item (by qualified name) is in catalog c
// or exposed by x.
func observable(c *Catalog, x *exposed, item string) bool {
	if _, ok := c.byName[item]; ok {
		return true
	}
	for _, d := range c.Domains {
		for _, p := range d.Prompts {
			if ItemName(d.Name, "prompt", p.Name) == item {
				return true
			}
		}
		for _, res := range d.Resources {
			if ItemName(d.Name, "resource", res.URI) == item {
				return true
			}
		}
		for _, tm := range d.Templates {
			if ItemName(d.Name, "template", tm.URITemplate) == item {
				return true
			}
		}
	}
	for name, route := range x.routes.tools {
		_ = name
		if QualifiedName(route.domain, route.name) == item {
			return true
		}
	}
	for name, route := range x.routes.prompts {
		_ = name
		if ItemName(route.domain, "prompt", route.name) == item {
			return true
		}
	}
	for uri, domain := range x.routes.resources {
		if ItemName(domain, "resource", uri) == item {
			return true
		}
	}
	for _, tr := range x.routes.templates {
		if ItemName(tr.domain, "template", tr.template) == item {
			return true
		}
	}
	return false
}

// TestAccessRulesHideItemsThroughMCP drives random rules through the MCP
// servers themselves, in passthrough and meta mode, with real upstreams:
// listings, reads, gets, completions, subscriptions, discover_tools
// (domains, listings, search, suggestions), get_tool_schema,
// execute_tool and the instructions never show a hidden item, and using
// one reads like using an item that does not exist.
func TestAccessRulesHideItemsThroughMCP(t *testing.T) {
	r := rand.New(rand.NewPCG(20261125, 2801))
	domains := []randomDomain{
		{name: "docs", tools: []string{"search", "page_delete"}, prompts: []string{"notes", "delete"}, resources: []string{"docs://notes/notes.txt", "docs://read/read.txt"}, templates: []string{"docs://page/{id}"}},
		{name: "crm", tools: []string{"people_search", "delete"}, prompts: []string{"search"}, resources: []string{"crm://list/list.txt"}},
		{name: "files", prompts: []string{"read"}, resources: []string{"files://notes/notes.txt"}, templates: []string{"files://read/{id}"}},
	}
	var cfgs []*UpstreamConfig
	for _, d := range domains {
		cfgs = append(cfgs, httpUpstream(d.name, serveHTTP(t, d.server()).URL))
	}
	rules := []AccessRule{{}, {Deny: []string{"docs*"}}, {Allow: []string{"crm.people_search"}}, {Allow: []string{"*." + kindResource + "*"}}}
	for range 12 {
		rules = append(rules, randomRule(r))
	}
	for _, mode := range []string{ModePassthrough, ModeMeta} {
		tg := startGatewayWith(t, Config{Mode: mode, Upstreams: cfgs}, Options{Access: rules})
		for i, rule := range rules {
			// Both eras: the views are the same, the SDK's handling not.
			cs := connectView(t, tg, i, []string{"2025-11-25", StatelessRevision}[i%2])
			seen := surfaces(t, cs, mode, domains)
			for _, d := range domains {
				for _, item := range d.items() {
					if rule.Allows(item) {
						continue
					}
					if mode == ModeMeta && !strings.HasPrefix(item, d.name+"."+itemKindTool(item)) {
						continue
					}
					if w, ok := seen[item]; ok {
						t.Errorf("%s mode, rule %+v: hidden item %s is observable through %s", mode, rule, item, w)
					}
				}
				if tg.allViews()[i].Catalog().Domain(d.name) == nil && strings.Contains(seen["instructions"], "`"+d.name+"`") {
					t.Errorf("%s mode, rule %+v: instructions name hidden domain %s", mode, rule, d.name)
				}
			}
			cs.Close()
		}
	}
}

// itemKindTool is what follows "domain." in a tool's qualified name
// (nothing: tools have no kind), or the item's kind.
func itemKindTool(item string) string {
	for _, k := range []string{kindPrompt, kindResource, kindTemplate} {
		if strings.Contains(item, "."+k) {
			return k
		}
	}
	return ""
}

func (d randomDomain) server() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: d.name}, &mcp.ServerOptions{
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{"x"}}}, nil
		},
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	for _, tool := range d.tools {
		addTextTool(s, tool, "Tool "+tool+" of "+d.name+".", "ran "+tool)
	}
	for _, p := range d.prompts {
		s.AddPrompt(&mcp.Prompt{Name: p, Description: "Prompt " + p + "."}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "prompt"}}}}, nil
		})
	}
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "content"}}}, nil
	}
	for _, u := range d.resources {
		s.AddResource(&mcp.Resource{URI: u, Name: u}, read)
	}
	for _, u := range d.templates {
		s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: u, Name: u}, read)
	}
	return s
}

// connectView connects a client of revision version to access rule i's
// MCP server.
func connectView(t *testing.T, tg *testGateway, i int, version string) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := tg.ServerFor(i).Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "probe"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// surfaces collects every item a client can observe, by qualified name,
// with the surface that showed it; "instructions" holds the instructions.
func surfaces(t *testing.T, cs *mcp.ClientSession, mode string, domains []randomDomain) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	seen := map[string]string{"instructions": cs.InitializeResult().Instructions}
	note := func(item, where string) {
		if _, ok := seen[item]; !ok {
			seen[item] = where
		}
	}
	if mode == ModePassthrough {
		tools, _ := cs.ListTools(ctx, nil)
		for _, tool := range tools.Tools {
			d, name, _ := strings.Cut(tool.Name, "_")
			note(QualifiedName(d, name), "tools/list")
		}
		if prompts, err := cs.ListPrompts(ctx, nil); err == nil {
			for _, p := range prompts.Prompts {
				d, name, _ := strings.Cut(p.Name, "_")
				note(ItemName(d, "prompt", name), "prompts/list")
			}
		}
		if res, err := cs.ListResources(ctx, nil); err == nil {
			for _, r := range res.Resources {
				d, _, _ := strings.Cut(r.URI, "://")
				note(ItemName(d, "resource", r.URI), "resources/list")
			}
		}
		if res, err := cs.ListResourceTemplates(ctx, nil); err == nil {
			for _, r := range res.ResourceTemplates {
				d, _, _ := strings.Cut(r.URITemplate, "://")
				note(ItemName(d, "template", r.URITemplate), "resources/templates/list")
			}
		}
		// Use every item of every domain, by its name.
		for _, d := range domains {
			for _, tool := range d.tools {
				if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: d.name + "_" + tool, Arguments: map[string]any{}}); err == nil && !res.IsError {
					note(QualifiedName(d.name, tool), "tools/call")
				}
			}
			for _, p := range d.prompts {
				if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: d.name + "_" + p}); err == nil {
					note(ItemName(d.name, "prompt", p), "prompts/get")
				}
				if _, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: d.name + "_" + p}, Argument: mcp.CompleteParamsArgument{Name: "a", Value: "b"}}); err == nil {
					note(ItemName(d.name, "prompt", p), "completion/complete")
				}
			}
			for _, u := range d.resources {
				if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: u}); err == nil {
					note(ItemName(d.name, "resource", u), "resources/read")
				}
				// (A 2026-07-28 client subscribes on a listen stream it opens
				// in the background: its Subscribe cannot fail.)
				if cs.InitializeResult().ProtocolVersion < StatelessRevision {
					if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: u}); err == nil {
						note(ItemName(d.name, "resource", u), "resources/subscribe")
					}
				}
			}
			for _, u := range d.templates {
				if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: strings.Replace(u, "{id}", "7", 1)}); err == nil {
					note(ItemName(d.name, "template", u), "resources/read (template)")
				}
			}
		}
		return seen
	}
	// Meta mode: every way the meta-tools show tools. A tool's description
	// ("Tool x of d.") is unique, so it shows wherever the tool does; the
	// qualified name shows in discover_tools only where the tool is listed
	// (discover_tools is never given it), and in get_tool_schema and
	// execute_tool only echoed in their not-found errors.
	call := func(tool string, args map[string]any) (string, bool) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.Content)
		return string(b), res.IsError
	}
	var discovered []string
	add := func(where string, args map[string]any) {
		text, _ := call(DiscoverToolsName, args)
		discovered = append(discovered, where+"\x00"+text)
	}
	add("discover_tools()", map[string]any{})
	for _, d := range domains {
		add("discover_tools(domain)", map[string]any{"domain": d.name})
		for _, tool := range d.tools {
			add("discover_tools(query)", map[string]any{"query": tool})
			add("discover_tools(misspelt query)", map[string]any{"query": tool + "x"})
		}
	}
	for _, d := range domains {
		for _, tool := range d.tools {
			item := QualifiedName(d.name, tool)
			description := "Tool " + tool + " of " + d.name + "."
			for _, entry := range discovered {
				where, text, _ := strings.Cut(entry, "\x00")
				if strings.Contains(text, item) || strings.Contains(text, description) {
					note(item, where)
				}
			}
			if text, isError := call(GetToolSchemaName, map[string]any{"tool_name": item}); !isError || strings.Contains(text, description) {
				note(item, "get_tool_schema")
			}
			if text, isError := call(ExecuteToolName, map[string]any{"tool_name": item}); !isError || strings.Contains(text, "ran "+tool) {
				note(item, "execute_tool")
			}
		}
	}
	return seen
}
