package gateway

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// Session modes of an upstream.
const (
	// SessionShared: one upstream session serves every client (the
	// default): efficient, for stateless tools. Progress still reaches the
	// calling client; server-to-client requests are not possible.
	SessionShared = "shared"
	// SessionPerClient: each client session gets its own upstream session,
	// created on first use and closed with the client's session; the
	// upstream sees the client's capabilities and its requests (sampling,
	// elicitation, roots) and log messages reach that client.
	SessionPerClient = "per_client"
)

// clientSessions holds each client session's own upstream sessions and
// logging level.
type clientSessions struct {
	mu       sync.Mutex
	byClient map[*mcp.ServerSession]*clientState
	closed   bool
	perUp    map[string]int // clients' own upstream sessions open, by domain
	// perIdentity counts them by domain and caller identity (see
	// identityKey), for each identity's share.
	perIdentity map[string]int
}

// reserve counts one more of the clients' own upstream sessions of domain
// open, for a caller of identity ("" for one without a user, see
// withSlotIdentity), unless limit (if positive) are open already, or
// identity has its share of them (half, rounded up, as of an upstream's
// concurrent calls: see DefaultCallShare), so that one caller cannot take
// every session and leave the others busy. It returns the function that
// counts the session out, or a *BusyError.
func (c *clientSessions) reserve(domain, identity string, limit int) (release func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := domain + "\x00" + identity
	switch {
	case limit > 0 && c.perUp[domain] >= limit:
		return nil, &BusyError{Limit: limit, ClientSessions: true}
	case limit > 0 && identity != "" && c.perIdentity[key] >= DefaultCallShare(limit):
		return nil, &BusyError{Limit: DefaultCallShare(limit), ClientSessions: true, PerIdentity: true}
	}
	if c.perUp == nil {
		c.perUp, c.perIdentity = map[string]int{}, map[string]int{}
	}
	c.perUp[domain]++
	c.perIdentity[key]++
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.perUp[domain]--; c.perUp[domain] <= 0 {
				delete(c.perUp, domain)
			}
			if c.perIdentity[key]--; c.perIdentity[key] <= 0 {
				delete(c.perIdentity, key)
			}
		})
	}, nil
}

// shareIdentity is the identity a caller's own upstream sessions count
// against for its share: none for a caller without a user, whom every
// anonymous caller would otherwise share.
func shareIdentity(c Caller) string {
	if c.User == "" {
		return ""
	}
	return c.Identity()
}

type clientState struct {
	mu        sync.Mutex
	level     mcp.LoggingLevel
	upstreams map[string]*clientUpstream // by domain name
	// subscriptions are the client's subscriptions counted on the shared
	// upstream sessions (see changeSubscription), released when it ends.
	subscriptions map[sharedSubscription]bool
}

// sharedSubscription is one URI of one domain a view counts subscribers
// of on the domain's shared upstream session.
type sharedSubscription struct {
	view        *view
	domain, uri string
}

type clientUpstream struct {
	upstream   *Upstream
	release    func() // counts it out of the clients' own sessions
	relay      *Relay
	key        string          // the SessionKey it was made for
	subscribed map[string]bool // the URIs the client subscribed to on it
}

// upstreamFor returns the upstream session a client's request to domain d
// goes through: the client's own for a per_client upstream (with the relay
// that connects it to the client), else the shared one. A request of the
// stateless revision has no session to own one: it goes through the shared
// one, where an upstream of that revision asks its questions in results.
//
// A client that would need one more own session than the upstream's
// ClientSessionLimit gets a *BusyError.
func (g *Gateway) upstreamFor(req mcp.Request, d *Domain) (*Upstream, *Relay, error) {
	s := g.current()
	cfg := s.byName[d.Name]
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if ss == nil || cfg == nil || cfg.Session != SessionPerClient || s.stateless || requestVersion(req) >= StatelessRevision {
		return d.upstream, nil, nil
	}
	state := g.clientState(ss)
	if state == nil {
		return d.upstream, nil, nil // the gateway is closing
	}
	state.mu.Lock()
	defer state.mu.Unlock()
	if cu, ok := state.upstreams[d.Name]; ok {
		return cu.upstream, cu.relay, nil
	}
	release, err := g.clients.reserve(d.Name, shareIdentity(g.callerOf(req.GetExtra())), cfg.ClientSessionLimit())
	if err != nil {
		return nil, nil, err
	}
	relay := newRelay(ss, cfg.RelayRoots)
	level := state.level
	u := NewUpstream(cfg.Connection, UpstreamOptions{
		Logger: g.logger.With(zap.String("upstream", d.Name), zap.String("client_session", ss.ID())),
		Relay:  relay,
		OnConnect: func(ctx context.Context, s *mcp.ClientSession) {
			if level != "" {
				_ = s.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: level})
			}
		},
	})
	u.OnResourceUpdated(g.ownResourceUpdated(ss, state, d.Name))
	state.upstreams[d.Name] = &clientUpstream{upstream: u, release: release, relay: relay, key: cfg.SessionKey()}
	return u, relay, nil
}

// requestVersion is the protocol revision a request speaks.
func requestVersion(req mcp.Request) string {
	if r, ok := req.(interface{ ProtocolVersion() string }); ok {
		return r.ProtocolVersion()
	}
	return ""
}

// clientState returns the state of a client session, creating it (and a
// watcher that closes the client's upstream sessions when its session
// ends) on first use; nil once the gateway is closed.
func (g *Gateway) clientState(ss *mcp.ServerSession) *clientState {
	g.clients.mu.Lock()
	defer g.clients.mu.Unlock()
	if g.clients.closed {
		return nil
	}
	if st, ok := g.clients.byClient[ss]; ok {
		return st
	}
	st := &clientState{upstreams: make(map[string]*clientUpstream)}
	g.clients.byClient[ss] = st
	go func() {
		_ = ss.Wait()
		g.dropClient(ss)
	}()
	return st
}

// dropClient closes the upstream sessions of a client session that ended.
func (g *Gateway) dropClient(ss *mcp.ServerSession) {
	g.clients.mu.Lock()
	st := g.clients.byClient[ss]
	delete(g.clients.byClient, ss)
	g.clients.mu.Unlock()
	if st != nil {
		st.close(&g.clients)
	}
}

// close closes a client's own upstream sessions and counts them out of c,
// and releases its subscriptions on the shared ones.
func (st *clientState) close(c *clientSessions) {
	st.mu.Lock()
	ups := st.upstreams
	st.upstreams = map[string]*clientUpstream{}
	subs := st.subscriptions
	st.subscriptions = nil
	st.mu.Unlock()
	for _, cu := range ups {
		_ = cu.upstream.Close()
		cu.release()
	}
	for sub := range subs {
		sub.view.countSubscriber(context.Background(), sub.domain, sub.uri, -1)
	}
}

// closeStaleClientUpstreams closes the clients' own upstream sessions
// that s no longer wants: their upstream is gone, its connection changed,
// or it is no longer per_client. The next call makes a new one.
func (g *Gateway) closeStaleClientUpstreams(s *setup) {
	g.clients.mu.Lock()
	states := make([]*clientState, 0, len(g.clients.byClient))
	for _, st := range g.clients.byClient {
		states = append(states, st)
	}
	g.clients.mu.Unlock()
	for _, st := range states {
		st.mu.Lock()
		var stale []*Upstream
		for name, cu := range st.upstreams {
			cfg := s.byName[name]
			if cfg == nil || cfg.Session != SessionPerClient || cfg.SessionKey() != cu.key {
				stale = append(stale, cu.upstream)
				delete(st.upstreams, name)
				cu.release()
			}
		}
		st.mu.Unlock()
		for _, u := range stale {
			go u.Close() // lets calls in flight finish first
		}
	}
}

// closeClients closes every client's own upstream sessions, for Close.
func (g *Gateway) closeClients() {
	g.clients.mu.Lock()
	g.clients.closed = true
	states := g.clients.byClient
	g.clients.byClient = map[*mcp.ServerSession]*clientState{}
	g.clients.mu.Unlock()
	for _, st := range states {
		st.close(&g.clients)
	}
}

// relayLogLevel is receiving middleware: when a client sets its logging
// level, its own upstream sessions get the same level, now and when they
// are created later.
func (g *Gateway) relayLogLevel(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || method != "logging/setLevel" {
			return res, err
		}
		ss, _ := req.GetSession().(*mcp.ServerSession)
		params, _ := req.GetParams().(*mcp.SetLoggingLevelParams)
		if ss == nil || params == nil {
			return res, err
		}
		if st := g.clientState(ss); st != nil {
			st.mu.Lock()
			st.level = params.Level
			ups := make([]*Upstream, 0, len(st.upstreams))
			for _, cu := range st.upstreams {
				ups = append(ups, cu.upstream)
			}
			st.mu.Unlock()
			for _, u := range ups {
				_ = u.SetLoggingLevel(ctx, params.Level)
			}
		}
		return res, err
	}
}
