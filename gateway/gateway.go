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

// Gateway serves one merged catalog of upstream tools. It outlives its
// configuration: Update swaps the config and upstreams while its MCP
// servers, and so the client sessions on them, carry on. Its catalog is an
// immutable snapshot, rebuilt off the request path whenever an upstream's
// state or lists change.
type Gateway struct {
	logger      *zap.Logger
	sdkLogger   *slog.Logger
	startupWait time.Duration

	setup     atomic.Pointer[setup]
	updateMu  sync.Mutex // serialises Update
	closeOnce sync.Once  // Close does its work once

	viewsMu sync.RWMutex
	views   []*view // one per access rule; views of rules a reload removed keep serving their sessions

	catalog   atomic.Pointer[Catalog] // everything, for operators
	rebuildMu sync.Mutex              // serialises rebuilds, so a newer snapshot is never replaced by an older one
	rebuild   chan struct{}
	cancel    context.CancelFunc
	done      chan struct{}

	// Vetting (see vet.go): under rebuildMu, but for notices (read by
	// Upstreams) and pins (their own lock).
	vetCache *vetCache
	noticed  map[string]map[string]bool // upstream -> notices logged
	notices  atomic.Pointer[map[string][]string]
	pins     pins

	clients clientSessions
	// ownUpdates marks the resource updates being sent from a client's
	// own upstream session with that client's session (see
	// ownResourceUpdated).
	ownUpdates sync.Map
	notes      notificationQueues       // notifications waiting for their clients (notificationqueue.go)
	states     atomic.Pointer[stateKey] // signs request states (requeststate.go)
	// stateSecret is the StateSecret states is made from ("": random),
	// under updateMu.
	stateSecret string
	held        heldCalls // calls held open for their callers' answers (pending.go)
	sessions    sessionTable
	callers     callers
	misses      searchMisses
}

// setup is one configuration of a gateway; Update replaces it whole, so a
// request sees one configuration throughout.
type setup struct {
	cfg       Config
	stateless bool
	rules     []AccessRule
	upstreams []*Upstream // one per cfg.Upstreams entry, same order
	byName    map[string]*UpstreamConfig
	started   chan struct{} // closed once every upstream's first attempt has ended
	createdAt time.Time
	unsub     []func()
	observer  Observer
	logValues bool

	sessionIDPrefix string
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
	// Observer, if set, hears of every tool call and search (metrics).
	Observer Observer
	// LogValues adds tool calls' argument and result values to their log
	// lines (bounded). Off, only who called what, how long it took and
	// how it ended are logged.
	LogValues bool
	// Pins keeps the tool pins (see pinning.go) across restarts; nil
	// keeps them in memory only, so a restart pins every tool afresh.
	Pins PinStorage
	// SessionIDPrefix starts every new client session's ID (then 128
	// random bits), and every request state the gateway hands a client,
	// so that a load balancer in front of several gateway instances can
	// send a session's requests, or a retry, to the instance that has it.
	// It must be visible ASCII (see ValidSessionIDPrefix).
	SessionIDPrefix string
	// StateSecret signs the request states of multi round-trip requests.
	// Instances behind one balancer that may answer each other's retries
	// share one; without it, each gateway signs with a random key of its
	// own, so a retry must return to the instance that issued its state
	// (and a restart voids the states in flight). An Update that changes
	// or removes it voids the states signed with the old one.
	StateSecret string
}

// ValidSessionIDPrefix checks a SessionIDPrefix: MCP session IDs are
// visible ASCII (0x21 to 0x7E).
func ValidSessionIDPrefix(p string) error {
	for _, c := range []byte(p) {
		if c < 0x21 || c > 0x7e {
			return fmt.Errorf("session ID prefix %q: only visible ASCII characters, no spaces", p)
		}
	}
	if len(p) > 64 {
		return fmt.Errorf("session ID prefix %q: at most 64 characters", p)
	}
	return nil
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
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.StartupWait == 0 {
		opts.StartupWait = DefaultStartupWait
	}
	ctx, cancel := context.WithCancel(context.Background())
	g := &Gateway{
		logger:      opts.Logger,
		sdkLogger:   opts.SDKLogger,
		startupWait: opts.StartupWait,
		rebuild:     make(chan struct{}, 1),
		cancel:      cancel,
		done:        make(chan struct{}),
		clients:     clientSessions{byClient: make(map[*mcp.ServerSession]*clientState)},
	}
	if err := g.Update(cfg, upstreams, opts); err != nil {
		cancel()
		return nil, err
	}
	go g.rebuildLoop(ctx)
	g.sessions.start(g)
	return g, nil
}

// Update makes cfg, over upstreams (as for New), the gateway's
// configuration, with opts' Stateless and Access. The MCP servers stay:
// client sessions carry on under the new configuration (under the access
// rule at the same position), and new sessions get the new instructions.
// A client's own upstream session for an upstream whose connection
// changed, or that is gone, is closed; a call held for a stateless
// caller's answers whose domain is gone, or whose tool the caller's rule
// now hides, ends (see endHeldCallsOutOfReach). Subscriptions through a shared
// upstream session follow a domain to its new connection, and end where
// the domain is gone or the rule now hides the resource (see
// keepSubscriptions).
func (g *Gateway) Update(cfg Config, upstreams []*Upstream, opts Options) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if len(upstreams) != len(cfg.Upstreams) {
		return fmt.Errorf("gateway: %d upstreams for %d upstream configs", len(upstreams), len(cfg.Upstreams))
	}
	if err := ValidateAccessRules(opts.Access); err != nil {
		return fmt.Errorf("access: %v", err)
	}
	if err := ValidSessionIDPrefix(opts.SessionIDPrefix); err != nil {
		return err
	}
	g.updateMu.Lock()
	defer g.updateMu.Unlock()
	if g.states.Load() == nil || opts.StateSecret != g.stateSecret {
		// A secret changed or removed voids the states signed with it (a
		// secret that leaked is dropped so); without one, the random key
		// lasts as long as the gateway.
		k := newStateKey(opts.StateSecret)
		g.states.Store(&k)
		g.stateSecret = opts.StateSecret
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err := g.pins.load(ctx, opts.Pins)
	cancel()
	if err != nil {
		return fmt.Errorf("tool pins: %v", err)
	}
	s := &setup{
		cfg:       cfg,
		stateless: opts.Stateless,
		rules:     opts.Access,
		observer:  opts.Observer,
		logValues: opts.LogValues,

		sessionIDPrefix: opts.SessionIDPrefix,
		upstreams:       upstreams,
		byName:          make(map[string]*UpstreamConfig, len(cfg.Upstreams)),
		started:         make(chan struct{}),
		createdAt:       time.Now(),
	}
	if len(s.rules) == 0 {
		s.rules = []AccessRule{{}}
	}
	for _, u := range cfg.Upstreams {
		s.byName[u.Name] = u
	}
	for i, u := range upstreams {
		s.unsub = append(s.unsub, u.OnChange(g.requestRebuild), u.OnResourceUpdated(g.sharedResourceUpdated(cfg.Upstreams[i].Name)))
		u.SetToolLimit(cfg.ToolLimit())
		u.SetItemSizeLimit(cfg.ToolSizeLimit())
	}
	old := g.setup.Swap(s)
	if old != nil {
		for _, f := range old.unsub {
			f()
		}
		g.closeStaleClientUpstreams(s)
		g.endHeldCallsOutOfReach(s)
	}
	g.viewsMu.Lock()
	for i, r := range s.rules {
		if i < len(g.views) {
			g.views[i].setRule(r)
		} else {
			g.views = append(g.views, newView(g, r))
		}
	}
	for _, v := range g.views {
		v.ensureServer(s)
	}
	g.viewsMu.Unlock()
	g.rebuildCatalog()
	go g.watchStartup(s)
	if old != nil {
		go g.keepSubscriptions()
	}
	return nil
}

// stateKey is the key request states are signed with.
func (g *Gateway) stateKey() stateKey { return *g.states.Load() }

// current is the configuration in force.
func (g *Gateway) current() *setup { return g.setup.Load() }

// Server is the MCP server of the first access rule (the only one, when
// there are no rules); serve it with any go-sdk transport.
func (g *Gateway) Server() *mcp.Server { return g.ServerFor(0) }

// ServerFor is the MCP server for new sessions of requests under access
// rule i (an index into Options.Access), or nil if there is no such rule.
func (g *Gateway) ServerFor(i int) *mcp.Server {
	g.viewsMu.RLock()
	defer g.viewsMu.RUnlock()
	if i < 0 || i >= len(g.views) {
		return nil
	}
	return g.views[i].newSessionServer()
}

// allViews returns the views, for iteration without the lock.
func (g *Gateway) allViews() []*view {
	g.viewsMu.RLock()
	defer g.viewsMu.RUnlock()
	return append([]*view(nil), g.views...)
}

// Catalog returns the current catalog snapshot, unfiltered by access
// rules (for operators).
func (g *Gateway) Catalog() *Catalog { return g.catalog.Load() }

// Started is closed once every upstream's first connection attempt has
// ended and the catalog reflects them.
func (g *Gateway) Started() <-chan struct{} { return g.current().started }

// AwaitStartup lets the first requests wait, for a bounded time, until the
// upstreams' first connection attempts have ended, so that an early client
// sees every upstream that could be reached rather than an empty catalog
// (or, in passthrough mode, empty lists). It costs nothing once the
// gateway has started. A server in front of the gateway calls it before
// serving each request.
func (g *Gateway) AwaitStartup(ctx context.Context) {
	s := g.current()
	select {
	case <-s.started:
		return
	default:
	}
	wait := time.Until(s.createdAt.Add(g.startupWait))
	if wait <= 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-s.started:
	case <-ctx.Done():
	case <-t.C:
	}
}

// watchStartup closes s.started once every upstream of s has started.
func (g *Gateway) watchStartup(s *setup) {
	for _, u := range s.upstreams {
		select {
		case <-u.Started():
		case <-g.done:
			return
		}
	}
	g.rebuildCatalog()
	close(s.started)
}

// Close stops the gateway's own work, closes its client sessions and the
// upstream sessions clients had of their own. It does not close the
// shared upstreams. Calling it again does nothing.
func (g *Gateway) Close() error {
	g.closeOnce.Do(g.close)
	return nil
}

func (g *Gateway) close() {
	if s := g.current(); s != nil {
		for _, f := range s.unsub {
			f()
		}
	}
	g.cancel()
	<-g.done
	for _, v := range g.allViews() {
		for _, srv := range v.allServers() {
			for ss := range srv.Sessions() {
				_ = ss.Close()
			}
		}
	}
	g.closeClients()
	g.held.closeAll()
	g.sessions.close()
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
func (s *setup) descriptionCheck() string {
	if s.cfg.DescriptionCheck == "" {
		return DescriptionCheckFlag
	}
	return s.cfg.DescriptionCheck
}

func (g *Gateway) rebuildCatalog() {
	g.rebuildMu.Lock()
	defer g.rebuildMu.Unlock()
	s := g.current()
	sources := g.vetSources(s)
	c := buildCatalog(sources, AccessRule{}, s.cfg.searchOptions())
	g.catalog.Store(c)
	for _, v := range g.allViews() {
		v.update(s, sources, c)
	}
}
