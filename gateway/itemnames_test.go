package gateway

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestItemNamesThatSteerTextAreLeftOut: a prompt, resource or resource
// template whose name or URI holds a control character (here an escape
// sequence that clears a terminal) or a bidirectional control reaches no
// client, and the operator hears of each; the upstream's other items are
// served as before.
func TestItemNamesThatSteerTextAreLeftOut(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "docs"}, nil)
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "x"}}}, nil
	}
	s.AddResource(&mcp.Resource{URI: "docs://guide", Name: "guide"}, read)
	s.AddResource(&mcp.Resource{URI: "docs://clear", Name: "clear\x1b[2J"}, read)
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "docs://page/{id}", Name: "page"}, read)
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "docs://evil/{id}", Name: "evil\u2067"}, read)
	get := func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	}
	s.AddPrompt(&mcp.Prompt{Name: "brief"}, get)
	s.AddPrompt(&mcp.Prompt{Name: "summary\u202egnp.exe"}, get)
	s.AddPrompt(&mcp.Prompt{Name: "plan", Arguments: []*mcp.PromptArgument{{Name: "goal\r"}}}, get)

	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("docs", serveHTTP(t, s).URL)}})
	ctx := context.Background()
	var shown []string
	resources, err := tg.client.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resources.Resources {
		shown = append(shown, r.Name)
	}
	templates, err := tg.client.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range templates.ResourceTemplates {
		shown = append(shown, r.Name)
	}
	prompts, err := tg.client.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts.Prompts {
		shown = append(shown, p.Name)
	}
	if got, want := strings.Join(shown, " "), "docs_guide docs_page docs_brief"; got != want {
		t.Errorf("clients are shown %q, want %q", got, want)
	}
	notices := strings.Join(tg.Upstreams()[0].Notices, "\n")
	for _, want := range []string{`resource "clear\x1b[2J" is left out`, `resource template "evil\u2067" is left out`, `prompt "summary\u202egnp.exe" is left out`, `prompt "goal\r" is left out`} {
		if !strings.Contains(notices, want) {
			t.Errorf("no notice %q in:\n%s", want, notices)
		}
	}
}
