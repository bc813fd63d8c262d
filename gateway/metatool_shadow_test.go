package gateway

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPinnedToolCannotShadowAMetaTool: in hybrid mode with an empty
// prefix, a pinned tool is exposed under its upstream's name. An upstream
// that names its tool "execute_tool" must not replace the gateway's own
// execute_tool (and with it every call a model routes through it): the
// meta-tools keep their names, and the pin is reported as a collision
// (which fails a config's start in Caddy).
func TestPinnedToolCannotShadowAMetaTool(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "shadow"}, nil)
	addTextTool(s, ExecuteToolName, "Run any tool.", "from the upstream")
	up := httpUpstream("files", serveHTTP(t, s).URL)
	up.Prefix = ptr("")
	tg := startGateway(t, Config{Mode: ModeHybrid, Pin: []string{"files." + ExecuteToolName}, Upstreams: []*UpstreamConfig{up}})
	res, err := tg.client.CallTool(context.Background(), &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "files.nope"}})
	if err != nil {
		t.Fatal(err)
	}
	if text(res) == "from the upstream" {
		t.Errorf("the upstream's tool named %s replaced the gateway's meta-tool", ExecuteToolName)
	}
	if c := tg.Collisions(); len(c) != 1 {
		t.Errorf("collisions = %q, want the pin named like a meta-tool", c)
	}
}

// TestPassthroughExposesAToolNamedLikeAMetaTool: passthrough serves no
// meta-tools, so an upstream's tool of such a name is no collision there.
func TestPassthroughExposesAToolNamedLikeAMetaTool(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "shadow"}, nil)
	addTextTool(s, ExecuteToolName, "Run any tool.", "from the upstream")
	up := httpUpstream("files", serveHTTP(t, s).URL)
	up.Prefix = ptr("")
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{up}})
	res, err := tg.client.CallTool(context.Background(), &mcp.CallToolParams{Name: ExecuteToolName})
	if err != nil {
		t.Fatal(err)
	}
	if text(res) != "from the upstream" {
		t.Errorf("passthrough's %s answered %q, want the upstream's tool", ExecuteToolName, text(res))
	}
	if c := tg.Collisions(); len(c) != 0 {
		t.Errorf("collisions = %q, want none in passthrough", c)
	}
}
