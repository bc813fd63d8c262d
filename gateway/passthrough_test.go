package gateway

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func ptr(s string) *string { return &s }

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// contentServer has a tool, a resource, a template and a prompt.
func contentServer(name string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: name}, nil)
	addTextTool(s, "search", "Search "+name+".", name+" results")
	s.AddResource(&mcp.Resource{URI: "mem://" + name + "/readme", Name: "readme", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "readme of " + name}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "mem://" + name + "/items/{id}", Name: "item"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "item " + req.Params.URI}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: name + " greets " + req.Params.Arguments["who"]}}}}, nil
		})
	return s
}

func TestPassthroughExposesEverythingPrefixed(t *testing.T) {
	a, b := httpUpstream("alpha", serveHTTP(t, contentServer("alpha")).URL), httpUpstream("beta", serveHTTP(t, contentServer("beta")).URL)
	b.Prefix = ptr("b.")
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{a, b}})
	ctx := context.Background()

	if got := toolNames(t, tg.client); !slices.Equal(got, []string{"alpha_search", "b.search"}) {
		t.Fatalf("tools = %v, want each upstream's search under its prefix", got)
	}
	for name, want := range map[string]string{"alpha_search": "alpha results", "b.search": "beta results"} {
		res, err := tg.client.CallTool(ctx, &mcp.CallToolParams{Name: name})
		if err != nil || text(res) != want {
			t.Errorf("%s = %v, %v; want %q", name, res, err, want)
		}
	}

	resources, err := tg.client.ListResources(ctx, nil)
	if err != nil || len(resources.Resources) != 2 {
		t.Fatalf("resources = %+v, %v", resources, err)
	}
	for _, r := range resources.Resources {
		if !strings.HasPrefix(r.URI, "mem://") || (r.Name != "alpha_readme" && r.Name != "b.readme") {
			t.Errorf("resource %+v: URIs stay, names get the prefix", r)
		}
	}
	read, err := tg.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mem://beta/readme"})
	if err != nil || read.Contents[0].Text != "readme of beta" {
		t.Errorf("read beta readme = %+v, %v", read, err)
	}
	item, err := tg.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mem://alpha/items/42"})
	if err != nil || item.Contents[0].Text != "item mem://alpha/items/42" {
		t.Errorf("read through a template = %+v, %v", item, err)
	}
	if _, err := tg.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mem://nowhere"}); err == nil {
		t.Error("reading an unknown resource succeeded")
	}

	prompt, err := tg.client.GetPrompt(ctx, &mcp.GetPromptParams{Name: "b.greet", Arguments: map[string]string{"who": "you"}})
	if err != nil || prompt.Messages[0].Content.(*mcp.TextContent).Text != "beta greets you" {
		t.Errorf("prompt = %+v, %v", prompt, err)
	}
}

func TestPassthroughCollisionKeepsTheFirst(t *testing.T) {
	a, b := httpUpstream("alpha", serveHTTP(t, contentServer("alpha")).URL), httpUpstream("beta", serveHTTP(t, contentServer("beta")).URL)
	a.Prefix, b.Prefix = ptr(""), ptr("")
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{a, b}})
	if got := toolNames(t, tg.client); !slices.Equal(got, []string{"search"}) {
		t.Errorf("tools = %v", got)
	}
	res, _ := tg.client.CallTool(context.Background(), &mcp.CallToolParams{Name: "search"})
	if text(res) != "alpha results" {
		t.Errorf("search answered %q, want the first upstream's", text(res))
	}
	c := tg.Collisions()
	if len(c) == 0 || !strings.Contains(strings.Join(c, " "), `tool "search" is in both upstream "alpha" and upstream "beta"`) {
		t.Errorf("collisions = %v", c)
	}
}

func TestPassthroughFollowsUpstreamChanges(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "dyn"}, nil)
	addTextTool(s, "first", "The first tool.", "1")
	up := httpUpstream("dyn", serveHTTP(t, s).URL)
	up.Prefix = ptr("")
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{up}})

	changed := make(chan struct{}, 10)
	ct, st := mcp.NewInMemoryTransports()
	if _, err := tg.Server().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "watcher"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	}).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	addTextTool(s, "second", "Added later.", "2")
	waitFor(t, "tools/list_changed at the client", func() bool { return len(changed) > 0 })
	if got := toolNames(t, cs); !slices.Equal(got, []string{"first", "second"}) {
		t.Errorf("after the upstream added a tool: %v", got)
	}
}

func TestHybridExposesPinnedTools(t *testing.T) {
	a := httpUpstream("alpha", serveHTTP(t, contentServer("alpha")).URL)
	tg := startGateway(t, Config{Mode: ModeHybrid, Pin: []string{"alpha.search", "alpha.missing"}, Upstreams: []*UpstreamConfig{a}})
	got := toolNames(t, tg.client)
	if !slices.Equal(got, []string{"alpha_search", DiscoverToolsName, ExecuteToolName, GetToolSchemaName}) {
		t.Errorf("hybrid tools = %v, want the meta-tools and the one pin that resolves", got)
	}
	res, err := tg.client.CallTool(context.Background(), &mcp.CallToolParams{Name: "alpha_search"})
	if err != nil || text(res) != "alpha results" {
		t.Errorf("pinned tool = %v %v", res, err)
	}
	if r, _ := tg.client.ListResources(context.Background(), nil); r != nil && len(r.Resources) > 0 {
		t.Errorf("hybrid mode exposes resources: %v", r.Resources)
	}
}

func TestConfigRejectsPinOutsideHybrid(t *testing.T) {
	cfg := Config{Pin: []string{"a.b"}}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "hybrid mode only") {
		t.Errorf("pin in meta mode: %v", err)
	}
	cfg = Config{Mode: "mirror"}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "unknown mode") {
		t.Errorf("bad mode: %v", err)
	}
}
