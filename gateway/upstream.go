package gateway

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// upstreamProtocolVersion is the version the gateway asks upstreams for.
// Pinning it skips the SDK's discovery round trip; servers that speak only
// an older version negotiate down from it.
const upstreamProtocolVersion = "2025-11-25"

// Limits on what an upstream may send in tools/list.
const (
	maxToolPages = 1000
	maxTools     = 100_000
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
	// StateReady: connected, tools listed, calls go through.
	StateReady
	// StateDown: the last attempt failed or the session ended; the upstream
	// is retried with backoff and calls fail fast meanwhile.
	StateDown
	// StateClosed: Close was called.
	StateClosed
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
	}
	return fmt.Sprintf("State(%d)", int32(s))
}

// UpstreamStatus is a snapshot of an upstream connection.
type UpstreamStatus struct {
	State State
	// Tools is the last tool list the upstream sent (kept while it is down,
	// so its domain still shows what it offers).
	Tools []*mcp.Tool
	// LastError is why the upstream is down, if it is.
	LastError error
	// RefreshedAt is when Tools was last read.
	RefreshedAt time.Time
	// Server and Instructions are what the upstream said of itself on
	// initialize.
	Server       *mcp.Implementation
	Instructions string
}

// Upstream is a live connection to one upstream MCP server. It connects in
// the background, lists the server's tools (following pagination), keeps the
// list fresh on notifications/tools/list_changed, reconnects with backoff
// when the session ends, and calls tools. It is safe for concurrent use and
// may be shared by several gateways (across config reloads, for instance).
type Upstream struct {
	conn   Connection
	logger *zap.Logger
	client *mcp.Client

	ctx     context.Context // ends with Close
	cancel  context.CancelFunc
	refresh chan struct{}      // a tools/list_changed arrived
	broken  chan brokenSession // a call found the connection failed
	started chan struct{}      // closed when the first attempt has ended
	done    chan struct{}      // closed when run returns

	mu        sync.Mutex
	status    UpstreamStatus
	session   *mcp.ClientSession
	listeners map[int]func()
	nextID    int
}

// NewUpstream returns an upstream for conn and starts connecting to it.
func NewUpstream(conn Connection, logger *zap.Logger) *Upstream {
	if logger == nil {
		logger = zap.NewNop()
	}
	ctx, cancel := context.WithCancel(context.Background())
	u := &Upstream{
		conn:      conn,
		logger:    logger,
		ctx:       ctx,
		cancel:    cancel,
		refresh:   make(chan struct{}, 1),
		broken:    make(chan brokenSession, 1),
		started:   make(chan struct{}),
		done:      make(chan struct{}),
		listeners: make(map[int]func()),
	}
	u.client = mcp.NewClient(&mcp.Implementation{Name: "caddy-mcp-gateway", Version: Version}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			// Never list tools from inside a notification handler: signal.
			select {
			case u.refresh <- struct{}{}:
			default:
			}
		},
	})
	go u.run()
	return u
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

// OnChange registers f to be called after the state or the tool list
// changes. f must not block. The returned function unregisters it.
func (u *Upstream) OnChange(f func()) (cancel func()) {
	u.mu.Lock()
	id := u.nextID
	u.nextID++
	u.listeners[id] = f
	u.mu.Unlock()
	return func() {
		u.mu.Lock()
		delete(u.listeners, id)
		u.mu.Unlock()
	}
}

// brokenSession is a session a call found broken, and why.
type brokenSession struct {
	session *mcp.ClientSession
	err     error
}

// UnavailableError is returned for calls to an upstream that is down.
type UnavailableError struct {
	State  State
	Reason error
}

func (e *UnavailableError) Error() string {
	if e.Reason != nil {
		return fmt.Sprintf("upstream %s: %v", e.State, e.Reason)
	}
	return "upstream " + e.State.String()
}

func (e *UnavailableError) Unwrap() error { return e.Reason }

// CallTool calls a tool on the upstream, within the upstream's timeout. While
// the first connection attempt is under way it waits for it; when the
// upstream is down it fails at once with an *UnavailableError.
func (u *Upstream) CallTool(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, u.conn.CallTimeout())
	defer cancel()
	select {
	case <-u.started:
	case <-ctx.Done():
		return nil, &UnavailableError{State: StateConnecting, Reason: errors.New("still connecting")}
	}
	u.mu.Lock()
	session, status := u.session, u.status
	u.mu.Unlock()
	if session == nil || status.State != StateReady {
		return nil, &UnavailableError{State: status.State, Reason: status.LastError}
	}
	res, err := session.CallTool(ctx, params)
	if err != nil && isTransportFailure(err) {
		// The connection, not the call, failed: reconnect, and fail fast
		// until that works.
		select {
		case u.broken <- brokenSession{session, err}:
		default:
		}
		return nil, &UnavailableError{State: StateDown, Reason: err}
	}
	return res, err
}

// isTransportFailure reports whether err means the connection to the
// upstream failed, as opposed to the upstream answering with a JSON-RPC
// error or the call running out of time.
func isTransportFailure(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	return !peerAnswered(err)
}

// codeRejectedByTransport is the code the SDK gives a request its transport
// could not deliver (connection refused, ...): a failure of the connection,
// not an answer from the upstream.
const codeRejectedByTransport = -32005

// peerAnswered reports whether err holds a JSON-RPC error the upstream
// itself sent.
func peerAnswered(err error) bool {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) && wire.Code != codeRejectedByTransport {
		return true
	}
	switch e := err.(type) {
	case interface{ Unwrap() error }:
		if inner := e.Unwrap(); inner != nil {
			return peerAnswered(inner)
		}
	case interface{ Unwrap() []error }:
		for _, inner := range e.Unwrap() {
			if peerAnswered(inner) {
				return true
			}
		}
	}
	return false
}

// Close ends the connection (and a stdio upstream's processes) and waits
// for that, for a bounded time.
func (u *Upstream) Close() error {
	u.cancel()
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
		connected, err := u.serveOnce()
		if u.ctx.Err() != nil {
			return
		}
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
		log("upstream unavailable; will retry", zap.Error(err), zap.Int("attempt", failures), zap.Duration("retry_in", wait))
		u.setStatus(func(s *UpstreamStatus) { s.State, s.LastError = StateDown, err })
		u.markStarted()
		select {
		case <-u.ctx.Done():
			return
		case <-time.After(wait):
		}
		backoff = min(backoff*2, maxBackoff)
	}
}

// serveOnce connects, lists tools, and serves refreshes until the session
// ends. It reports whether it got as far as a ready session.
func (u *Upstream) serveOnce() (connected bool, err error) {
	transport, cmd, err := newTransport(&u.conn, u.logger)
	if err != nil {
		return false, err
	}
	defer killProcessGroup(cmd)
	// Some transports (legacy SSE) tie the whole connection to the context
	// given to Connect, so it must outlive Connect: the timeout cancels it
	// only while connecting.
	sessionCtx, endSession := context.WithCancel(u.ctx)
	defer endSession()
	connectTimer := time.AfterFunc(u.conn.CallTimeout(), endSession)
	session, err := u.client.Connect(sessionCtx, transport, &mcp.ClientSessionOptions{ProtocolVersion: upstreamProtocolVersion})
	if !connectTimer.Stop() && err == nil {
		session.Close()
		err = fmt.Errorf("no answer within %s", u.conn.CallTimeout())
	}
	if err != nil {
		return false, fmt.Errorf("connecting: %w", err)
	}
	defer session.Close()
	ctx, cancel := context.WithTimeout(u.ctx, u.conn.CallTimeout())
	tools, err := listTools(ctx, session)
	cancel()
	if err != nil {
		return false, fmt.Errorf("listing tools: %w", err)
	}
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
		*s = UpstreamStatus{State: StateReady, Tools: tools, RefreshedAt: time.Now()}
		if init != nil {
			s.Server, s.Instructions = init.ServerInfo, init.Instructions
		}
	})
	u.markStarted()
	u.logger.Info("upstream ready", zap.Int("tools", len(tools)))

	ended := make(chan error, 1)
	go func() { ended <- session.Wait() }()
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
		case <-u.refresh:
			ctx, cancel := context.WithTimeout(u.ctx, u.conn.CallTimeout())
			tools, err := listTools(ctx, session)
			cancel()
			if err != nil {
				u.logger.Warn("refreshing tools after list_changed", zap.Error(err))
				continue
			}
			u.setStatus(func(s *UpstreamStatus) { s.Tools, s.RefreshedAt = tools, time.Now() })
			u.logger.Info("upstream tools refreshed", zap.Int("tools", len(tools)))
		}
	}
}

// listTools reads the whole tool list, page by page, refusing a list that
// never ends.
func listTools(ctx context.Context, session *mcp.ClientSession) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	params := &mcp.ListToolsParams{}
	seen := make(map[string]bool)
	for range maxToolPages {
		res, err := session.ListTools(ctx, params)
		if err != nil {
			return nil, err
		}
		for _, t := range res.Tools {
			if t != nil && t.Name != "" {
				tools = append(tools, t)
			}
		}
		if len(tools) > maxTools {
			return nil, fmt.Errorf("more than %d tools", maxTools)
		}
		if res.NextCursor == "" {
			return tools, nil
		}
		if seen[res.NextCursor] {
			return nil, fmt.Errorf("tools/list pagination loops (cursor %q repeats)", res.NextCursor)
		}
		seen[res.NextCursor] = true
		params = &mcp.ListToolsParams{Cursor: res.NextCursor}
	}
	return nil, fmt.Errorf("tools/list has more than %d pages", maxToolPages)
}

func (u *Upstream) setStatus(change func(*UpstreamStatus)) {
	u.mu.Lock()
	change(&u.status)
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
