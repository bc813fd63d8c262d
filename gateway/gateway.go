// Package gateway is an MCP gateway usable without Caddy: it connects to
// upstream MCP servers, merges their tools into one catalog, and serves MCP
// clients either the three meta-tools (discover_tools, get_tool_schema,
// execute_tool) over that catalog, or the upstreams' own tools, resources
// and prompts, or both.
package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// Gateway serves one merged catalog of upstream tools. Its catalog is an
// immutable snapshot, rebuilt off the request path whenever an upstream's
// state or lists change; in passthrough and hybrid mode the MCP server's
// own tools, resources and prompts follow each new snapshot.
type Gateway struct {
	cfg            Config
	opts           Options
	upstreams      []*Upstream // one per cfg.Upstreams entry, same order
	upstreamConfig map[string]*UpstreamConfig
	logger         *zap.Logger
	views          []*view // one per access rule

	catalog   atomic.Pointer[Catalog] // everything, for operators
	rebuildMu sync.Mutex              // serialises rebuilds, so a newer snapshot is never replaced by an older one
	rebuild   chan struct{}
	cancel    context.CancelFunc
	done      chan struct{}
	unsub     []func()

	started   chan struct{}
	createdAt time.Time
	flagged   map[string]bool // tools whose description was reported, under rebuildMu

	clients  clientSessions
	sessions sessionBindings
}

// Options are the parts of a gateway that are not config.
type Options struct {
	// Logger gets the gateway's own logs; nil discards them.
	Logger *zap.Logger
	// SDKLogger gets the MCP SDK's server logs; nil discards them.
	SDKLogger *slog.Logger
	// StartupWait bounds how long the first requests wait for upstreams'
	// first connection attempts. Zero means DefaultStartupWait.
	StartupWait time.Duration
	// Stateless says the server is served without sessions, so a client
	// cannot have upstream sessions of its own.
	Stateless bool
	// Access are the access rules requests can be under; each gets an
	// MCP server of its own (ServerFor). None means one rule that allows
	// everything.
	Access []AccessRule
}

// DefaultStartupWait is how long early requests wait for upstreams still
// making their first connection attempt (a stdio server fetched by npx
// can take seconds). Upstreams still connecting after it keep trying in
// the background and discover_tools reports them as connecting.
const DefaultStartupWait = 15 * time.Second

// New makes a gateway for cfg over upstreams, which must hold one live
// discovery Upstream per cfg.Upstreams entry, in the same order. The
// caller owns the upstreams (they may outlive the gateway, e.g. across
// config reloads) and must call Close when done with the gateway.
func New(cfg Config, upstreams []*Upstream, opts Options) (*Gateway, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(upstreams) != len(cfg.Upstreams) {
		return nil, fmt.Errorf("gateway: %d upstreams for %d upstream configs", len(upstreams), len(cfg.Upstreams))
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.StartupWait == 0 {
		opts.StartupWait = DefaultStartupWait
	}
	ctx, cancel := context.WithCancel(context.Background())
	g := &Gateway{
		cfg:            cfg,
		opts:           opts,
		upstreams:      upstreams,
		upstreamConfig: make(map[string]*UpstreamConfig),
		logger:         opts.Logger,
		rebuild:        make(chan struct{}, 1),
		cancel:         cancel,
		done:           make(chan struct{}),
		started:        make(chan struct{}),
		createdAt:      time.Now(),
		clients:        clientSessions{byClient: make(map[*mcp.ServerSession]*clientState)},
		flagged:        make(map[string]bool),
	}
	for _, u := range cfg.Upstreams {
		g.upstreamConfig[u.Name] = u
	}
	if err := ValidateAccessRules(opts.Access); err != nil {
		cancel()
		return nil, fmt.Errorf("access: %v", err)
	}
	rules := opts.Access
	if len(rules) == 0 {
		rules = []AccessRule{{}}
	}
	for _, r := range rules {
		g.views = append(g.views, newView(g, r))
	}
	g.rebuildCatalog()
	for _, u := range upstreams {
		g.unsub = append(g.unsub, u.OnChange(g.requestRebuild), u.OnResourceUpdated(g.resourceUpdated))
	}
	go g.rebuildLoop(ctx)
	go g.watchStartup(ctx)
	g.sessions.start(g)
	return g, nil
}

// Server is the MCP server of the first access rule (the only one, when
// there are no rules); serve it with any go-sdk transport.
func (g *Gateway) Server() *mcp.Server { return g.views[0].server }

// ServerFor is the MCP server for requests under access rule i (an index
// into Options.Access).
func (g *Gateway) ServerFor(i int) *mcp.Server { return g.views[i].server }

// Catalog returns the current catalog snapshot, unfiltered by access
// rules (for operators).
func (g *Gateway) Catalog() *Catalog { return g.catalog.Load() }

// Started is closed once every upstream's first connection attempt has
// ended and the catalog reflects them.
func (g *Gateway) Started() <-chan struct{} { return g.started }

// AwaitStartup lets the first requests wait, for a bounded time, until the
// upstreams' first connection attempts have ended, so that an early client
// sees every upstream that could be reached rather than an empty catalog
// (or, in passthrough mode, empty lists). It costs nothing once the
// gateway has started. A server in front of the gateway calls it before
// serving each request.
func (g *Gateway) AwaitStartup(ctx context.Context) {
	select {
	case <-g.started:
		return
	default:
	}
	wait := time.Until(g.createdAt.Add(g.opts.StartupWait))
	if wait <= 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-g.started:
	case <-ctx.Done():
	case <-t.C:
	}
}

// watchStartup closes g.started once every upstream has started.
func (g *Gateway) watchStartup(ctx context.Context) {
	for _, u := range g.upstreams {
		select {
		case <-u.Started():
		case <-ctx.Done():
			return
		}
	}
	g.rebuildCatalog()
	close(g.started)
}

// Close stops the gateway's own work and closes the upstream sessions
// clients had of their own. It does not close the shared upstreams.
func (g *Gateway) Close() error {
	for _, f := range g.unsub {
		f()
	}
	g.cancel()
	<-g.done
	g.closeClients()
	g.sessions.close()
	return nil
}

func (g *Gateway) requestRebuild() {
	select {
	case g.rebuild <- struct{}{}:
	default:
	}
}

func (g *Gateway) rebuildLoop(ctx context.Context) {
	defer close(g.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-g.rebuild:
			g.rebuildCatalog()
		}
	}
}

// descriptionCheck is the configured description check, or the default.
func (g *Gateway) descriptionCheck() string {
	if g.cfg.DescriptionCheck == "" {
		return DescriptionCheckFlag
	}
	return g.cfg.DescriptionCheck
}

func (g *Gateway) rebuildCatalog() {
	g.rebuildMu.Lock()
	defer g.rebuildMu.Unlock()
	sources := make([]domainSource, len(g.upstreams))
	for i, u := range g.upstreams {
		sources[i] = domainSource{cfg: g.cfg.Upstreams[i], status: u.Status(), upstream: u, check: g.descriptionCheck()}
	}
	c := buildCatalog(sources, AccessRule{})
	g.catalog.Store(c)
	for _, name := range c.Flagged {
		if !g.flagged[name] {
			g.flagged[name] = true
			g.logger.Warn("upstream tool description reads like instructions to the model (tool poisoning?); "+
				"description_check "+g.descriptionCheck()+" applies; override it with a `tool` block if it is fine",
				zap.String("tool", name))
		}
	}
	for _, v := range g.views {
		v.update(sources, c)
	}
}
