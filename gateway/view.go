package gateway

import (
	"context"
	"crypto/rand"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A view is what one access rule sees: MCP servers of its own, over a
// catalog holding only the tools the rule allows. Every answer a view
// gives (listings, counts, search results, suggestions, schemas, calls,
// passthrough lists, instructions) comes from that catalog, so a hidden
// tool is never listed, described, suggested or callable, and asking for
// one reads exactly like asking for a tool that does not exist.
//
// A view has one MCP server for new sessions; when a config reload changes
// what a session is told on initialize (the mode, the instructions), a new
// server takes over new sessions and the old one goes on serving its own,
// with the same, current, catalog.
type view struct {
	g        *Gateway
	operator bool // an operator's look at the whole catalog (see Gateway.Discover)
	rule     atomic.Pointer[AccessRule]
	catalog  atomic.Pointer[Catalog]
	exposed  exposure // what the catalog exposes directly, and the routes back

	mu      sync.Mutex
	servers []*viewServer // the last one gets new sessions
}

// viewServer is one MCP server of a view, with what it was made for and
// what it has registered.
type viewServer struct {
	server          *mcp.Server
	mode            string
	instructions    string
	sessionIDPrefix string
	registered      registrations
}

func newView(g *Gateway, rule AccessRule) *view {
	v := &view{g: g}
	v.rule.Store(&rule)
	return v
}

func (v *view) setRule(r AccessRule) { v.rule.Store(&r) }

// ensureServer makes sure the server for new sessions is one made for s:
// its mode and its instructions.
func (v *view) ensureServer(s *setup) {
	mode, instructions, prefix := s.cfg.EffectiveMode(), v.instructions(s), s.sessionIDPrefix
	v.mu.Lock()
	defer v.mu.Unlock()
	if n := len(v.servers); n > 0 && v.servers[n-1].mode == mode && v.servers[n-1].instructions == instructions && v.servers[n-1].sessionIDPrefix == prefix {
		return
	}
	vs := &viewServer{mode: mode, instructions: instructions, sessionIDPrefix: prefix}
	vs.server = mcp.NewServer(&mcp.Implementation{Name: "caddy-mcp-gateway", Title: "Caddy MCP Gateway", Version: Version}, v.serverOptions(mode, instructions, prefix))
	// Middleware applies right to left: recoverPanics is outermost.
	vs.server.AddReceivingMiddleware(recoverPanics(v.g.logger), retireCodes, v.g.notes.answerAfterQueued, v.g.knownCallersOnly, v.g.relayLogLevel, v.listsUnderRequestPolicy, v.g.observeUnservedCalls)
	// updatesItShows decides who gets an update as it is sent (its marks
	// last only that long); the queue, innermost, only defers the writing.
	vs.server.AddSendingMiddleware(sendVerbatimSchema, v.updatesItShows, v.g.notes.queue)
	if mode != ModePassthrough {
		tools := metaTools()
		handlers := []mcp.ToolHandler{v.discoverTools, v.getToolSchema, v.executeTool}
		for i, t := range tools {
			vs.server.AddTool(t, reachHandler(handlers[i]))
		}
	}
	v.servers = append(v.servers, vs)
}

// requestView is the view a request is served by: that of the access rule
// the request itself is under. A request of an earlier revision arrives on
// the server of the rule its session began under, which may be another
// (an operator's policy for tools/call, say): each request is judged by its
// own rule, and session is the view whose server it arrived on.
func (g *Gateway) requestView(req mcp.Request, session *view) *view {
	c, ok := g.callers.of(req.GetExtra())
	if !ok {
		return session
	}
	g.viewsMu.RLock()
	defer g.viewsMu.RUnlock()
	if c.Policy >= 0 && c.Policy < len(g.views) {
		return g.views[c.Policy]
	}
	return session
}

// newSessionServer is the server new sessions go to.
func (v *view) newSessionServer() *mcp.Server {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.servers[len(v.servers)-1].server
}

// allServers are the view's servers, for iteration.
func (v *view) allServers() []*mcp.Server {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make([]*mcp.Server, len(v.servers))
	for i, vs := range v.servers {
		out[i] = vs.server
	}
	return out
}

// dropIdleServers forgets the servers that no longer get new sessions and
// have none left.
func (v *view) dropIdleServers() {
	v.mu.Lock()
	defer v.mu.Unlock()
	kept := v.servers[:0]
	for i, vs := range v.servers {
		idle := true
		for range vs.server.Sessions() {
			idle = false
			break
		}
		if !idle || i == len(v.servers)-1 {
			kept = append(kept, vs)
		}
	}
	clear(v.servers[len(kept):])
	v.servers = kept
}

// instructions are what the view's new sessions are told on initialize
// (and 2026-07-28 clients on server/discover): the configured text, else
// the built-in one naming the domains the view shows, as its catalog says
// (before its first catalog, those its rule may show).
func (v *view) instructions(s *setup) string {
	if s.cfg.Instructions != "" {
		return s.cfg.Instructions
	}
	rule := v.rule.Load()
	c := v.catalog.Load()
	var shown []*UpstreamConfig
	for _, u := range s.cfg.Upstreams {
		if c != nil && c.Domain(u.Name) != nil || c == nil && rule.allowsUnknownDomain(u.Name) {
			shown = append(shown, u)
		}
	}
	if s.cfg.EffectiveMode() == ModePassthrough {
		return passthroughInstructions(shown)
	}
	return defaultInstructions(shown)
}

// serverOptions are a view server's: in passthrough mode, with the
// capabilities and handlers of resources, prompts and completions.
func (v *view) serverOptions(mode, instructions, sessionIDPrefix string) *mcp.ServerOptions {
	opts := &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       v.g.sdkLogger,
		InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
			v.g.sessions.watch(req.Session)
		},
	}
	if sessionIDPrefix != "" {
		opts.GetSessionID = func() string { return sessionIDPrefix + rand.Text() }
	}
	opts.SetCacheable = v.cacheHints(mode)
	if mode != ModePassthrough {
		// Tools only, but the lists of prompts and resources answer too
		// (empty, with their cache hints), as the capabilities say.
		opts.Capabilities = &mcp.ServerCapabilities{
			Logging:   &mcp.LoggingCapabilities{},
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{},
			Prompts:   &mcp.PromptCapabilities{},
		}
	}
	if mode == ModePassthrough {
		opts.Capabilities = &mcp.ServerCapabilities{
			Logging:   &mcp.LoggingCapabilities{},
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			Prompts:   &mcp.PromptCapabilities{ListChanged: true},
		}
		opts.CompletionHandler = v.complete
		opts.SubscribeHandler = v.subscribe
		opts.UnsubscribeHandler = v.unsubscribe
	}
	return opts
}

// Catalog is the view's current catalog.
func (v *view) Catalog() *Catalog { return v.catalog.Load() }

// update gives the view the part of a new full catalog its rule allows,
// and brings its servers' direct exposure in line with it.
func (v *view) update(s *setup, sources []domainSource, full *Catalog) {
	rule := *v.rule.Load()
	c := full
	if !rule.allowsAll() {
		c = buildCatalog(sources, rule, s.cfg.searchOptions())
	}
	v.catalog.Store(c)
	v.ensureServer(s) // the domains it names may have changed
	v.expose(s, c)
}
