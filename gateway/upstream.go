package gateway

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// Reconnect backoff bounds.
const (
	minBackoff = 500 * time.Millisecond
	maxBackoff = 30 * time.Second
)

// State is where an upstream connection stands.
type State int32

const (
	// StateConnecting: the first connection attempt is under way.
	StateConnecting State = iota
	// StateReady: connected, lists read, calls go through.
	StateReady
	// StateDown: the last attempt failed or the session ended; the upstream
	// is retried with backoff and calls fail fast meanwhile.
	StateDown
	// StateClosed: Close was called.
	StateClosed
	// StateDegraded: connected, but calls in a row got no answer in time
	// (see BreakerThreshold); calls fail fast while pings probe it.
	StateDegraded
)

func (s State) String() string {
	switch s {
	case StateConnecting:
		return "connecting"
	case StateReady:
		return "ready"
	case StateDown:
		return "unavailable"
	case StateClosed:
		return "closed"
	case StateDegraded:
		return "degraded"
	}
	return fmt.Sprintf("State(%d)", int32(s))
}

// UpstreamStatus is a snapshot of an upstream connection.
type UpstreamStatus struct {
	State State
	// Tools, Resources, ResourceTemplates and Prompts are the last lists
	// the upstream sent (kept while it is down, so its domain still shows
	// what it offers). Only a discovery connection reads them.
	Tools             []*mcp.Tool
	Resources         []*mcp.Resource
	ResourceTemplates []*mcp.ResourceTemplate
	Prompts           []*mcp.Prompt
	// OversizedItems counts the resources, templates and prompts of those
	// lists left out for their size (see SetItemSizeLimit).
	OversizedItems int
	itemBytes      int64 // the item size limit the lists were read under
	// LastError is why the upstream is down, if it is.
	LastError error
	// RefreshedAt is when the lists were last read.
	RefreshedAt time.Time
	// Server, Instructions and Capabilities are what the upstream said of
	// itself on initialize.
	Server       *mcp.Implementation
	Instructions string
	Capabilities *mcp.ServerCapabilities
}

// UpstreamOptions shape an upstream connection.
type UpstreamOptions struct {
	// Logger gets the connection's logs; nil discards them.
	Logger *zap.Logger
	// Discovery makes this the connection the catalog is read from: it
	// lists the upstream's tools, resources and prompts and keeps them
	// fresh on list_changed notifications.
	Discovery bool
	// RelayRoots makes a discovery connection declare the roots
	// capability too, for an upstream with UpstreamConfig.RelayRoots: the
	// tools it offers only to clients with roots are then in the catalog.
	// The connection itself has no roots to give.
	RelayRoots bool
	// Relay, if set, makes this connection one client's own: it advertises
	// that client's capabilities and hands the upstream's requests and
	// notifications to the relay.
	Relay ClientRelay
	// OnConnect runs on each new session, before it is used.
	OnConnect func(context.Context, *mcp.ClientSession)
	// Deferred makes the connection wait for Start before its first
	// attempt, so that a config can be provisioned and checked without
	// reaching any upstream (caddy validate).
	Deferred bool
}

// Upstream is a live connection to one upstream MCP server. It connects in
// the background, reconnects with backoff when the session ends, and makes
// calls on the current session; a discovery connection also keeps the
// upstream's lists. It is safe for concurrent use and may be shared by
// several gateways (across config reloads, for instance).
type Upstream struct {
	conn   Connection
	opts   UpstreamOptions
	logger *zap.Logger // redacts the connection's secrets
	redact *redactor
	client *mcp.Client

	ctx     context.Context // ends with Close
	cancel  context.CancelFunc
	refresh chan struct{} // a list_changed arrived
	// subscribers counts the clients subscribed on the shared session.
	subscribers subscriberCounts
	// subscribed are the URIs the session is subscribed to, which each
	// new session is subscribed to again.
	subscribed subscribedURIs
	broken     chan brokenSession // a call found the connection failed
	// degraded gets the session the breaker opened on, so the run loop
	// probes it.
	degraded chan *mcp.ClientSession
	// retryNow asks a down upstream's run loop to try again before its
	// backoff ends: a call wants it.
	retryNow chan struct{}
	// probeNow asks the probe of a degraded upstream to ping it before its
	// backoff ends: a call wants it.
	probeNow chan struct{}
	started  chan struct{} // closed when the first attempt has ended
	done     chan struct{} // closed when run returns
	runOnce  sync.Once     // starts run, or stands in for it when closed unstarted

	progress   sync.Map // progress token -> func(*mcp.ProgressNotificationParams)
	progressID uint64   // under mu

	// Notifications read off the connection, and handled, for settle.
	notesSeen atomic.Int64
	notesDone atomic.Int64

	inflight atomic.Int64 // requests running on the session, for Close

	toolLimit     atomic.Int64 // see SetToolLimit
	itemSizeLimit atomic.Int64 // see SetItemSizeLimit

	connects    atomic.Int64 // sessions that became ready
	latencyEWMA atomic.Int64 // recent call latency, ns, exponentially weighted
	// slots bound the calls in flight when the connection has a
	// MaxConcurrentCalls; nil means no limit.
	slots *callSlots

	mu        sync.Mutex
	status    UpstreamStatus
	session   *mcp.ClientSession
	breaker   breaker
	listeners map[int]func()
	updates   map[int]func(*mcp.ResourceUpdatedNotificationParams)
	nextID    int
}

// NewUpstream returns an upstream for conn and starts connecting to it.
func NewUpstream(conn Connection, opts UpstreamOptions) *Upstream {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	ctx, cancel := context.WithCancel(context.Background())
	redact := newRedactor(&conn)
	u := &Upstream{
		conn:      conn,
		opts:      opts,
		logger:    redact.logger(opts.Logger),
		redact:    redact,
		ctx:       ctx,
		cancel:    cancel,
		refresh:   make(chan struct{}, 1),
		broken:    make(chan brokenSession, 1),
		degraded:  make(chan *mcp.ClientSession, 1),
		retryNow:  make(chan struct{}, 1),
		probeNow:  make(chan struct{}, 1),
		started:   make(chan struct{}),
		done:      make(chan struct{}),
		listeners: make(map[int]func()),
		updates:   make(map[int]func(*mcp.ResourceUpdatedNotificationParams)),
	}
	u.slots = newCallSlots(conn.MaxConcurrentCalls, conn.MaxConcurrentCallsPerIdentity)
	u.client = mcp.NewClient(&mcp.Implementation{Name: "caddy-mcp-gateway", Version: Version}, u.clientOptions())
	if opts.Relay != nil {
		opts.Relay.install(u.client)
	} else if opts.Discovery {
		u.client.AddReceivingMiddleware(refuseSharedQuestions)
	}
	u.client.AddReceivingMiddleware(recoverPanics(u.logger), u.countNotifications)
	if !opts.Deferred {
		u.Start()
	}
	return u
}

// Start begins connecting, if the connection has not started yet: a
// Deferred connection waits for it. Calling it again, or after Close,
// does nothing.
func (u *Upstream) Start() {
	u.runOnce.Do(func() { go u.run() })
}

// clientOptions are the upstream client's capabilities and handlers: list
// changes refresh a discovery connection, progress goes to the call that
// asked for it, resource updates to OnResourceUpdated's subscribers, and
// everything a client must answer or see to the relay, if any.
func (u *Upstream) clientOptions() *mcp.ClientOptions {
	signal := func() {
		// Never list from inside a notification handler: signal the loop.
		select {
		case u.refresh <- struct{}{}:
		default:
		}
	}
	opts := &mcp.ClientOptions{
		Capabilities:                &mcp.ClientCapabilities{},
		ProgressNotificationHandler: u.routeProgress,
		// An upstream's input_required result (a question for the client
		// in the stateless revision) comes back to the gateway's call,
		// which hands it to the calling client (see mrtr.go).
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			u.mu.Lock()
			subs := make([]func(*mcp.ResourceUpdatedNotificationParams), 0, len(u.updates))
			for _, f := range u.updates {
				subs = append(subs, f)
			}
			u.mu.Unlock()
			for _, f := range subs {
				f(req.Params)
			}
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			u.logger.Debug("upstream log message", zap.String("level", string(req.Params.Level)), zap.Any("data", req.Params.Data))
		},
	}
	if u.opts.Discovery {
		opts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) { signal() }
		opts.PromptListChangedHandler = func(context.Context, *mcp.PromptListChangedRequest) { signal() }
		opts.ResourceListChangedHandler = func(context.Context, *mcp.ResourceListChangedRequest) { signal() }
		declareRelayable(opts, u.opts.RelayRoots)
	}
	if u.opts.Relay != nil {
		u.opts.Relay.configure(opts)
	}
	return opts
}

// ProtocolVersion is the revision the current session speaks, or "" when
// there is none.
func (u *Upstream) ProtocolVersion() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.session == nil {
		return ""
	}
	if init := u.session.InitializeResult(); init != nil {
		return init.ProtocolVersion
	}
	return ""
}

// Status returns a snapshot of the connection.
func (u *Upstream) Status() UpstreamStatus {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.status
}

// Started is closed once the first connection attempt has succeeded or
// failed.
func (u *Upstream) Started() <-chan struct{} { return u.started }

// OnChange registers f to be called after the state or the lists change.
// f must not block. The returned function unregisters it.
func (u *Upstream) OnChange(f func()) (cancel func()) {
	u.mu.Lock()
	defer u.mu.Unlock()
	id := u.nextID
	u.nextID++
	u.listeners[id] = f
	return func() {
		u.mu.Lock()
		delete(u.listeners, id)
		u.mu.Unlock()
	}
}

// OnResourceUpdated registers f to be called with the upstream's
// notifications/resources/updated. The returned function unregisters it.
func (u *Upstream) OnResourceUpdated(f func(*mcp.ResourceUpdatedNotificationParams)) (cancel func()) {
	u.mu.Lock()
	defer u.mu.Unlock()
	id := u.nextID
	u.nextID++
	u.updates[id] = f
	return func() {
		u.mu.Lock()
		delete(u.updates, id)
		u.mu.Unlock()
	}
}

// Close ends the connection (and a stdio upstream's processes) and waits
// for that, for a bounded time. Requests in flight (a config reload
// retires an upstream mid-call) first get the upstream's timeout to
// finish.
func (u *Upstream) Close() error {
	for deadline := time.Now().Add(u.conn.CallTimeout()); u.inflight.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	u.cancel()
	u.runOnce.Do(func() {
		// Never started: there is nothing to wait for.
		u.setStatus(func(s *UpstreamStatus) { s.State = StateClosed })
		u.markStarted()
		close(u.done)
	})
	select {
	case <-u.done:
	case <-time.After(10 * time.Second):
		return errors.New("upstream did not close within 10s")
	}
	return nil
}

// Destruct implements caddy.Destructor (without importing Caddy), so an
// Upstream can live in a caddy.UsagePool.
func (u *Upstream) Destruct() error { return u.Close() }

func (u *Upstream) run() {
	defer close(u.done)
	defer u.setStatus(func(s *UpstreamStatus) { s.State = StateClosed })
	backoff := minBackoff
	failures := 0
	for {
		began := time.Now()
		connected, err := u.serveOnce()
		if u.ctx.Err() != nil {
			return
		}
		err = u.redact.err(err) // net/url's errors quote the URL, query and all
		if connected {
			backoff, failures = minBackoff, 0
		}
		failures++
		// Say it once when the upstream goes down; retries are debug noise.
		log := u.logger.Debug
		if failures == 1 {
			log = u.logger.Warn
		}
		// Jitter keeps many gateways from retrying in step.
		wait := backoff/2 + rand.N(backoff/2+1)
		if connected && time.Since(began) > stableSession {
			// A session that had lasted ended (an upstream restarting, a
			// session it forgot): reconnect at once. One that ends as soon
			// as it starts backs off like a failed attempt.
			wait = 0
		}
		log("upstream unavailable; will retry", errField(err), zap.Int("attempt", failures), zap.Duration("retry_in", wait))
		u.setStatus(func(s *UpstreamStatus) { s.State, s.LastError = StateDown, err })
		u.markStarted()
		if !waitUnlessAsked(wait, minBackoff, u.retryNow, u.ctx.Done()) {
			return
		}
		backoff = min(backoff*2, maxBackoff)
	}
}

// stableSession is how long a session must have lasted for its end to be
// met with an immediate reconnect rather than backoff.
const stableSession = 2 * time.Second

// waitUnlessAsked waits for wait to pass, or only for minWait when asked
// receives meanwhile (a call wants the upstream). It reports false when
// stop closes first.
func waitUnlessAsked(wait, minWait time.Duration, asked, stop <-chan struct{}) bool {
	if wait <= 0 {
		select {
		case <-stop:
			return false
		default:
			return true
		}
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	earliest := time.After(min(wait, minWait))
	wanted := false
	for {
		select {
		case <-stop:
			return false
		case <-timer.C:
			return true
		case <-asked:
			if earliest == nil {
				return true
			}
			wanted = true
		case <-earliest:
			if wanted {
				return true
			}
			earliest = nil
		}
	}
}

// RetrySoon says a call wants the upstream: a down one tries to reconnect
// (at most once per minBackoff), a degraded one is probed (at most once per
// minProbeInterval), without waiting out their backoff. Calls keep
// failing fast meanwhile, and an upstream that comes back is used again
// within about a second, however long it was gone. It does nothing to an
// upstream that is ready.
func (u *Upstream) RetrySoon() {
	for _, ch := range []chan struct{}{u.retryNow, u.probeNow} {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// serveOnce connects, reads the lists, and serves refreshes until the
// session ends. It reports whether it got as far as a ready session.
func (u *Upstream) serveOnce() (connected bool, err error) {
	transport, cleanup, err := newTransport(&u.conn, u.logger, func() { u.notesSeen.Add(1) })
	if err != nil {
		return false, err
	}
	defer cleanup()
	// Some transports (legacy SSE) tie the whole connection to the context
	// given to Connect, so it must outlive Connect: the timeout cancels it
	// only while connecting.
	sessionCtx, endSession := context.WithCancel(u.ctx)
	defer endSession()
	connectTimer := time.AfterFunc(u.conn.CallTimeout(), endSession)
	// The SDK's client asks with server/discover for the newest revision
	// both sides speak, and falls back to the initialize handshake for a
	// server that predates it.
	session, err := u.client.Connect(sessionCtx, transport, nil)
	if !connectTimer.Stop() && err == nil {
		session.Close()
		err = fmt.Errorf("no answer within %s", u.conn.CallTimeout())
	}
	if err != nil {
		return false, fmt.Errorf("connecting: %w", err)
	}
	defer session.Close()
	if u.opts.OnConnect != nil {
		u.opts.OnConnect(u.ctx, session)
	}
	lists, err := u.readLists(session)
	if err != nil {
		return false, err
	}
	u.resubscribe(session)
	u.mu.Lock()
	u.session = session
	u.mu.Unlock()
	defer func() {
		u.mu.Lock()
		u.session = nil
		u.mu.Unlock()
	}()
	init := session.InitializeResult()
	u.setStatus(func(s *UpstreamStatus) {
		*s = lists
		s.State, s.RefreshedAt = StateReady, time.Now()
		if init != nil {
			s.Server, s.Instructions, s.Capabilities = init.ServerInfo, init.Instructions, init.Capabilities
		}
	})
	u.connects.Add(1)
	u.markStarted()
	if u.opts.Discovery {
		u.logger.Info("upstream ready", zap.Int("tools", len(lists.Tools)), zap.Int("resources", len(lists.Resources)), zap.Int("prompts", len(lists.Prompts)))
	}

	ended := make(chan error, 1)
	go func() { ended <- session.Wait() }()
	sessionDone := make(chan struct{})
	defer close(sessionDone)
	listedAt := time.Now()
	var relist <-chan time.Time // a re-list waiting out minRelistInterval
	for {
		select {
		case <-u.ctx.Done():
			return true, nil
		case err := <-ended:
			return true, fmt.Errorf("connection closed: %v", orUnknown(err))
		case b := <-u.broken:
			if b.session == session {
				return true, fmt.Errorf("connection failed during a call: %w", b.err)
			}
		case s := <-u.degraded:
			if s == session {
				go u.probe(session, sessionDone)
			}
		case <-u.refresh:
			// The re-list comes after the request (so it reads the last
			// change) but waits out minRelistInterval; the requests that
			// arrive meanwhile are all answered by it.
			if relist == nil {
				relist = time.After(time.Until(listedAt.Add(minRelistInterval)))
			}
		case <-relist:
			u.relist(session)
			relist, listedAt = nil, time.Now()
		}
	}
}

// minRelistInterval is the least time between the end of one re-list of
// an upstream's lists and the start of the next: an upstream sending
// list_changed without pause gets a re-list a second, not one per
// notification.
const minRelistInterval = time.Second

// relist reads the lists again (after list_changed or Refresh). Lists
// that read the same as those the status holds change nothing but
// RefreshedAt: an upstream announcing changes it did not make costs the
// gateway the reading, never a catalog rebuild.
func (u *Upstream) relist(session *mcp.ClientSession) {
	lists, err := u.readLists(session)
	if err != nil {
		u.logger.Warn("refreshing lists after list_changed", errField(err))
		return
	}
	u.mu.Lock()
	held := u.status // its lists are replaced, never changed in place
	u.mu.Unlock()
	if sameLists(lists, held) {
		u.mu.Lock()
		u.status.RefreshedAt = time.Now()
		u.mu.Unlock()
		return
	}
	u.setStatus(func(s *UpstreamStatus) {
		s.Tools, s.Resources, s.ResourceTemplates, s.Prompts = lists.Tools, lists.Resources, lists.ResourceTemplates, lists.Prompts
		s.RefreshedAt = time.Now()
	})
	u.logger.Info("upstream lists refreshed", zap.Int("tools", len(lists.Tools)), zap.Int("resources", len(lists.Resources)), zap.Int("prompts", len(lists.Prompts)))
}

// readLists reads, on a discovery connection, every list the upstream
// offers (by its capabilities), within the upstream's timeout.
func (u *Upstream) readLists(session *mcp.ClientSession) (UpstreamStatus, error) {
	var st UpstreamStatus
	if !u.opts.Discovery {
		return st, nil
	}
	ctx, cancel := context.WithTimeout(u.ctx, u.conn.CallTimeout())
	defer cancel()
	caps := &mcp.ServerCapabilities{}
	if init := session.InitializeResult(); init != nil && init.Capabilities != nil {
		caps = init.Capabilities
	}
	var err error
	itemBytes := u.itemSizeLimit.Load()
	st.itemBytes = itemBytes
	if st.Tools, _, err = listAll(ctx, toolPages(session), listBounds[mcp.Tool]{keep: u.keptTools(), itemBytes: itemBytes, oversized: oversizedTool}); err != nil {
		return st, fmt.Errorf("listing tools: %w", err)
	}
	var tooBig int
	if caps.Resources != nil {
		if st.Resources, tooBig, err = listAll(ctx, resourcePages(session), listBounds[mcp.Resource]{itemBytes: itemBytes}); err != nil {
			return st, fmt.Errorf("listing resources: %w", err)
		}
		st.OversizedItems += tooBig
		if st.ResourceTemplates, tooBig, err = listAll(ctx, templatePages(session), listBounds[mcp.ResourceTemplate]{itemBytes: itemBytes}); err != nil {
			return st, fmt.Errorf("listing resource templates: %w", err)
		}
		st.OversizedItems += tooBig
	}
	if caps.Prompts != nil {
		if st.Prompts, tooBig, err = listAll(ctx, promptPages(session), listBounds[mcp.Prompt]{itemBytes: itemBytes}); err != nil {
			return st, fmt.Errorf("listing prompts: %w", err)
		}
		st.OversizedItems += tooBig
	}
	return st, nil
}

func (u *Upstream) setStatus(change func(*UpstreamStatus)) {
	u.mu.Lock()
	change(&u.status)
	u.cutTools() // lists read while SetToolLimit was lowering the limit
	u.fitItems() // and while SetItemSizeLimit was
	listeners := make([]func(), 0, len(u.listeners))
	for _, f := range u.listeners {
		listeners = append(listeners, f)
	}
	u.mu.Unlock()
	for _, f := range listeners {
		f()
	}
}

func (u *Upstream) markStarted() {
	select {
	case <-u.started:
	default:
		close(u.started)
	}
}

func orUnknown(err error) error {
	if err == nil {
		return errors.New("the upstream ended the session")
	}
	return err
}
