package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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

// TimeoutError is returned for a call the upstream did not answer within
// the timeout it was made with (the upstream's, or the one WithCallTimeout
// set), which After says: a reload may have changed the configured one
// since. It unwraps to the call's error, context.DeadlineExceeded.
type TimeoutError struct {
	After time.Duration
	Err   error
}

func (e *TimeoutError) Error() string { return e.Err.Error() }
func (e *TimeoutError) Unwrap() error { return e.Err }

// BusyError is returned for a call that found no free slot, within its
// timeout, among an upstream's MaxConcurrentCalls, or among its caller's
// share of them (PerIdentity); or, with ClientSessions, no place among its
// clients' own sessions, or its caller's share of them (PerIdentity).
type BusyError struct {
	Limit       int
	PerIdentity bool
	// ClientSessions: the upstream has MaxClientSessions sessions of
	// clients' own (session per_client), and a new client needs one more.
	ClientSessions bool
}

func (e *BusyError) Error() string {
	if e.ClientSessions && e.PerIdentity {
		return fmt.Sprintf("upstream busy: you have %d client sessions of its own, your share of them", e.Limit)
	}
	if e.ClientSessions {
		return fmt.Sprintf("upstream busy: %d client sessions of its own, its limit", e.Limit)
	}
	if e.PerIdentity {
		return fmt.Sprintf("upstream busy: you have %d calls in flight on it, your share of its concurrent calls", e.Limit)
	}
	return fmt.Sprintf("upstream busy: %d calls in flight, its limit", e.Limit)
}

// withSession runs f on the current session, within the call's timeout
// (the upstream's, or a longer or shorter one WithCallTimeout set on ctx).
// While the first connection attempt is under way it waits for it; when
// the upstream is down or degraded it fails at once with an
// *UnavailableError (and asks a down upstream to retry soon). A failure of
// the connection itself (as opposed to an error the upstream answered
// with) makes the upstream reconnect and is returned as an
// *UnavailableError too, except that a session the upstream no longer
// knows (HTTP 404) is re-initialised and f retried once on the new
// session: the upstream never saw the request, so retrying is safe. With
// MaxConcurrentCalls, f waits for a free slot, and gives up with a
// *BusyError when the timeout ends first.
func (u *Upstream) withSession(ctx context.Context, f func(context.Context, *mcp.ClientSession) error) (err error) {
	// A failed call's error reaches logs and the caller: never with the
	// connection's secrets, nor the values of the headers the call adds
	// (see redactor).
	defer func() {
		if err != nil {
			err = u.redact.forCall(ctx).err(err)
		}
	}()
	u.inflight.Add(1)
	defer u.inflight.Add(-1)
	timeout := u.conn.CallTimeout()
	if d, ok := ctx.Value(callTimeoutKey{}).(time.Duration); ok && d > 0 {
		timeout = d
	}
	// Waiting (for the first connection, for a slot) is bounded by the
	// timeout; then the upstream gets the whole timeout to answer, so a
	// call that timed out is one the upstream itself did not answer in
	// time, never one that waited its time away (see recordCall).
	wait := newWaitBound(ctx, timeout)
	defer wait.release()
	if !wait.await(u.started) {
		return &UnavailableError{State: StateConnecting, Reason: errors.New("still connecting")}
	}
	u.mu.Lock()
	session, status := u.session, u.status
	u.mu.Unlock()
	if session == nil || status.State != StateReady {
		u.RetrySoon()
		return &UnavailableError{State: status.State, Reason: status.LastError}
	}
	if u.slots != nil {
		release, err := u.slots.acquire(wait.context())
		if err != nil {
			return err
		}
		defer release()
	}
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for attempt := 1; ; attempt++ {
		began := time.Now()
		err := f(callCtx, session)
		if err == nil {
			u.recordLatency(time.Since(began))
		}
		timedOut := errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil
		u.recordCall(session, err, timedOut)
		if err == nil || !isTransportFailure(err) {
			if timedOut {
				return &TimeoutError{After: timeout, Err: err}
			}
			return err
		}
		u.reportBroken(session, err)
		if attempt > 1 || !errors.Is(err, mcp.ErrSessionMissing) {
			return &UnavailableError{State: StateDown, Reason: err}
		}
		u.logger.Info("upstream forgot the session; re-initialising and retrying the call once", errField(err))
		if session = u.awaitNewSession(callCtx, session); session == nil {
			return &UnavailableError{State: StateDown, Reason: err}
		}
	}
}

// reportBroken tells the run loop that a call found session's connection
// failed, so that it reconnects.
func (u *Upstream) reportBroken(session *mcp.ClientSession, err error) {
	select {
	case u.broken <- brokenSession{session, err}:
	default:
	}
}

// awaitNewSession waits for a ready session other than old, and returns
// it, or nil if ctx ends or the upstream goes down first.
func (u *Upstream) awaitNewSession(ctx context.Context, old *mcp.ClientSession) *mcp.ClientSession {
	changed := make(chan struct{}, 1)
	stop := u.OnChange(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer stop()
	sawDown := false
	for {
		u.mu.Lock()
		session, state := u.session, u.status.State
		u.mu.Unlock()
		switch {
		case session != nil && session != old && state == StateReady:
			return session
		case state == StateDown:
			// Down with the old session gone is expected on the way to a new
			// one; down twice means the reconnect failed.
			if sawDown && session == nil {
				return nil
			}
			sawDown = true
		case state == StateClosed:
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil
		}
	}
}

// callTimeoutKey is the context key for WithCallTimeout.
type callTimeoutKey struct{}

// WithCallTimeout gives the calls made with the returned context their
// own timeout instead of the upstream's (an operator's per-tool timeout).
func WithCallTimeout(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, callTimeoutKey{}, d)
}

// CallTool calls a tool on the upstream. If onProgress is set, the
// upstream's progress notifications for the call are handed to it: the
// call carries the progress token params already has (a client's own
// session may use the client's token), else a new one.
func (u *Upstream) CallTool(ctx context.Context, params *mcp.CallToolParams, onProgress func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error) {
	if onProgress != nil {
		token := params.GetProgressToken()
		if token == nil {
			token = u.newProgressToken()
			params.SetProgressToken(token)
		}
		key := progressKey(token)
		u.progress.Store(key, onProgress)
		defer u.progress.Delete(key)
	}
	var res *mcp.CallToolResult
	err := u.withSession(ctx, func(ctx context.Context, s *mcp.ClientSession) (err error) {
		res, err = s.CallTool(ctx, params)
		u.settle(ctx)
		return err
	})
	return res, err
}

// settleMax bounds settle: a notification the SDK drops unhandled (it
// cannot decode it, say) must not hold calls up for long.
const settleMax = 200 * time.Millisecond

// settle waits until every notification read off the connection so far
// has been handled (see ordering.go): those an upstream sent before its
// answer to a call then reach the client before the answer. It costs
// nothing when nothing is pending.
func (u *Upstream) settle(ctx context.Context) {
	seen := u.notesSeen.Load()
	if u.notesDone.Load() >= seen {
		return
	}
	deadline := time.Now().Add(settleMax)
	for u.notesDone.Load() < seen {
		if time.Now().After(deadline) || ctx.Err() != nil {
			// Count what went missing as handled, so that later calls do
			// not wait for it too.
			if missing := seen - u.notesDone.Load(); missing > 0 {
				u.notesDone.Add(missing)
			}
			return
		}
		runtime.Gosched()
		time.Sleep(50 * time.Microsecond)
	}
}

// countNotifications is client receiving middleware that counts the
// notifications handled, for settle.
func (u *Upstream) countNotifications(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if isCountedMethod(method) {
			defer u.notesDone.Add(1)
		}
		return next(ctx, method, req)
	}
}

// ReadResource reads a resource from the upstream.
func (u *Upstream) ReadResource(ctx context.Context, params *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	var res *mcp.ReadResourceResult
	err := u.withSession(ctx, func(ctx context.Context, s *mcp.ClientSession) (err error) {
		res, err = s.ReadResource(ctx, params)
		return err
	})
	return res, err
}

// GetPrompt gets a prompt from the upstream.
func (u *Upstream) GetPrompt(ctx context.Context, params *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	var res *mcp.GetPromptResult
	err := u.withSession(ctx, func(ctx context.Context, s *mcp.ClientSession) (err error) {
		res, err = s.GetPrompt(ctx, params)
		return err
	})
	return res, err
}

// Complete asks the upstream for completions.
func (u *Upstream) Complete(ctx context.Context, params *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	var res *mcp.CompleteResult
	err := u.withSession(ctx, func(ctx context.Context, s *mcp.ClientSession) (err error) {
		res, err = s.Complete(ctx, params)
		return err
	})
	return res, err
}

// Subscribe subscribes to a resource's updates on the upstream. The
// subscription lasts until Unsubscribe: a new session (the upstream
// restarted, or forgot the session) is subscribed again (see
// resubscribe).
func (u *Upstream) Subscribe(ctx context.Context, uri string) error {
	err := u.withSession(ctx, func(ctx context.Context, s *mcp.ClientSession) error {
		return s.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
	})
	if err == nil {
		u.subscribed.set(uri, true)
	}
	return err
}

// Unsubscribe ends a subscription.
func (u *Upstream) Unsubscribe(ctx context.Context, uri string) error {
	err := u.withSession(ctx, func(ctx context.Context, s *mcp.ClientSession) error {
		return s.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	})
	if err == nil {
		u.subscribed.set(uri, false)
	}
	return err
}

// SetLoggingLevel sets the level of log messages the upstream sends.
func (u *Upstream) SetLoggingLevel(ctx context.Context, level mcp.LoggingLevel) error {
	return u.withSession(ctx, func(ctx context.Context, s *mcp.ClientSession) error {
		return s.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: level})
	})
}

func (u *Upstream) newProgressToken() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.progressID++
	return fmt.Sprintf("gw-%d", u.progressID)
}

// routeProgress hands a progress notification to the call that owns its
// token; notifications for tokens no call owns are dropped.
func (u *Upstream) routeProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	if f, ok := u.progress.Load(progressKey(req.Params.ProgressToken)); ok {
		f.(func(*mcp.ProgressNotificationParams))(req.Params)
	}
}

// progressKey is a progress token (a string or a number) as a map key.
func progressKey(token any) string {
	b, _ := json.Marshal(token)
	return string(b)
}

// isTransportFailure reports whether err means the connection to the
// upstream failed, as opposed to the upstream answering with a JSON-RPC
// error or the call running out of time.
//
// An answer the gateway could not decode (the SDK's reading of it failed)
// came over a working connection: it fails its call, not the upstream.
func isTransportFailure(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || undecodable(err) {
		return false
	}
	return !peerAnswered(err)
}

// undecodable reports whether err is a JSON decoding error: the upstream
// answered, with something that is not what the protocol says.
func undecodable(err error) bool {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	return errors.As(err, &syntax) || errors.As(err, &typ)
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
	return answeredError(err) != nil
}
