package gateway

import (
	"context"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A view is what one access rule sees: an MCP server of its own, over a
// catalog holding only the tools the rule allows. Every answer a view
// gives (listings, counts, search results, suggestions, schemas, calls,
// passthrough lists, instructions) comes from that catalog, so a hidden
// tool is never listed, described, suggested or callable, and asking for
// one reads exactly like asking for a tool that does not exist.
type view struct {
	g       *Gateway
	rule    AccessRule
	server  *mcp.Server
	catalog atomic.Pointer[Catalog]
	exposed exposure
}

func newView(g *Gateway, rule AccessRule) *view {
	v := &view{g: g, rule: rule}
	v.server = mcp.NewServer(&mcp.Implementation{Name: "caddy-mcp-gateway", Title: "Caddy MCP Gateway", Version: Version}, v.serverOptions())
	// Middleware applies right to left: recoverPanics is outermost.
	v.server.AddReceivingMiddleware(recoverPanics(g.logger), g.relayLogLevel)
	v.server.AddSendingMiddleware(sendVerbatimSchema)
	if g.cfg.EffectiveMode() != ModePassthrough {
		tools := metaTools()
		handlers := []mcp.ToolHandler{v.discoverTools, v.getToolSchema, v.executeTool}
		for i, t := range tools {
			v.server.AddTool(t, handlers[i])
		}
	}
	return v
}

// serverOptions are the view's MCP server's: its instructions (naming
// only the domains it shows), and in passthrough mode the capabilities
// and handlers of resources, prompts and completions.
func (v *view) serverOptions() *mcp.ServerOptions {
	cfg := v.g.cfg
	var shown []*UpstreamConfig
	for _, u := range cfg.Upstreams {
		if v.rule.allowsDomain(u.Name) {
			shown = append(shown, u)
		}
	}
	opts := &mcp.ServerOptions{
		Instructions: cfg.Instructions,
		Logger:       v.g.opts.SDKLogger,
		InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
			v.g.sessions.watch(req.Session)
		},
	}
	switch cfg.EffectiveMode() {
	case ModePassthrough:
		if opts.Instructions == "" {
			opts.Instructions = passthroughInstructions(shown)
		}
		opts.Capabilities = &mcp.ServerCapabilities{
			Logging:   &mcp.LoggingCapabilities{},
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			Prompts:   &mcp.PromptCapabilities{ListChanged: true},
		}
		opts.CompletionHandler = v.complete
		opts.SubscribeHandler = v.subscribe
		opts.UnsubscribeHandler = v.unsubscribe
	default:
		if opts.Instructions == "" {
			opts.Instructions = defaultInstructions(shown)
		}
	}
	return opts
}

// Catalog is the view's current catalog.
func (v *view) Catalog() *Catalog { return v.catalog.Load() }

// update gives the view the part of a new full catalog its rule allows.
func (v *view) update(sources []domainSource, full *Catalog) {
	c := full
	if !v.rule.allowsAll() {
		c = buildCatalog(sources, v.rule)
	}
	v.catalog.Store(c)
	if v.g.cfg.EffectiveMode() != ModeMeta {
		v.expose(c)
	}
}
