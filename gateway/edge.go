package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrForbidden, wrapped by an Identify error, refuses a request with 403.
var ErrForbidden = errors.New("forbidden")

// EdgeOptions shape a gateway's HTTP edge.
type EdgeOptions struct {
	// Identify decides each request's Caller; nil treats every request as
	// the zero Caller (the first access rule, no user).
	Identify Identify
	// Stateless serves clients of the revisions before 2026-07-28 without
	// sessions too, so that any of several gateway instances can answer
	// any request. Their server-to-client requests are not possible then.
	// Clients of 2026-07-28 and later are always served statelessly.
	Stateless bool
	// SessionTimeout closes sessions idle for this long (0: never).
	SessionTimeout time.Duration
	// MaxSessions bounds the sessions open at once (0: no limit), and
	// MaxSessionsPerIdentity those of one caller identity. A stateless
	// client's open subscriptions/listen stream counts as a session.
	MaxSessions, MaxSessionsPerIdentity int
	// MaxRequestBody bounds a request body, in bytes (0: DefaultMaxRequestBody).
	MaxRequestBody int64
	// AllowedHosts, if set, are the Host names (or "*.example.com") the
	// edge answers; otherwise a request that arrived on loopback must name
	// a loopback host (protection against DNS rebinding).
	AllowedHosts []string
	// AllowedOrigins are the origins browsers may call the edge from
	// cross-origin; other cross-origin browser requests are refused.
	AllowedOrigins []string
	// Logger gets the MCP SDK's server logs; nil discards them.
	Logger *slog.Logger
}

// DefaultMaxRequestBody bounds a request body when EdgeOptions say nothing.
const DefaultMaxRequestBody = 4 << 20

// Edge is the gateway's HTTP endpoint, for MCP clients of every protocol
// revision the SDK speaks. It reads each request's revision and serves
// it accordingly: a request of 2026-07-28 or later (per-request _meta,
// server/discover) statelessly, one of an earlier revision with the
// initialize handshake and a session (unless Stateless). Before anything
// else it checks the request's routing headers against its body, then
// asks Identify who the caller is, so that whatever routed or authorised
// on a header did so on the truth.
type Edge struct {
	g         *Gateway
	retiring  edgeRetirement
	settings  atomic.Pointer[edgeSettings]
	sessioned *mcp.StreamableHTTPHandler // earlier revisions, with sessions
	stateless *mcp.StreamableHTTPHandler // 2026-07-28 and later; earlier ones too with Stateless
}

// edgeSettings are the options Update can change, ready for use.
type edgeSettings struct {
	EdgeOptions
	origins *http.CrossOriginProtection
}

// NewEdge makes an HTTP edge for g.
func (g *Gateway) NewEdge(opts EdgeOptions) (*Edge, error) {
	e := &Edge{g: g}
	if err := e.Update(opts); err != nil {
		return nil, err
	}
	getServer := func(r *http.Request) *mcp.Server { return g.ServerFor(policyOf(r.Context())) }
	// The edge applies the host and body checks itself, for both handlers.
	e.sessioned = mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		SessionTimeout:             opts.SessionTimeout,
		Logger:                     opts.Logger,
		DisableLocalhostProtection: true,
	})
	// A client of the 2026-07-28 revision cancels a request by closing
	// its HTTP request (it sends no notifications/cancelled): the call
	// ends with it, as the revision requires.
	e.stateless = mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		Logger:                       opts.Logger,
		DisableLocalhostProtection:   true,
		PropagateRequestCancellation: true,
	})
	return e, nil
}

// Update changes the edge's options for the requests that follow, except
// SessionTimeout and Logger, which stay as NewEdge set them (a new edge,
// with new sessions, is needed to change those). Sessions open stay open.
func (e *Edge) Update(opts EdgeOptions) error {
	s := &edgeSettings{EdgeOptions: opts, origins: http.NewCrossOriginProtection()}
	if s.MaxRequestBody <= 0 {
		s.MaxRequestBody = DefaultMaxRequestBody
	}
	for _, o := range opts.AllowedOrigins {
		if err := s.origins.AddTrustedOrigin(o); err != nil {
			return fmt.Errorf("allowed origin %q: %v", o, err)
		}
	}
	e.settings.Store(s)
	return nil
}

// ServeHTTP serves one MCP request.
func (e *Edge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	opts := e.settings.Load()
	if msg := checkHost(r, opts.AllowedHosts); msg != "" {
		http.Error(w, msg, http.StatusForbidden)
		return
	}
	if err := opts.origins.Check(r); err != nil {
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	r.Header.Del(callerHeader) // only the edge sets it
	var m message
	if r.Method == http.MethodPost && r.Body != nil {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, opts.MaxRequestBody))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				http.Error(w, fmt.Sprintf("request body exceeds %d bytes, this MCP gateway's limit (max_request_body)", tooLarge.Limit), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		m = readMessage(body)
		if problem := checkRoutingHeaders(m, r.Header); problem != "" {
			writeJSONRPCError(w, http.StatusBadRequest, m.id, CodeHeaderMismatch, problem)
			return
		}
		fillRoutingHeaders(m, r.Header)
	}
	caller := Caller{}
	if opts.Identify != nil {
		c, err := opts.Identify(r)
		if err != nil {
			status := http.StatusInternalServerError
			if errors.Is(err, ErrForbidden) {
				status = http.StatusForbidden
			}
			http.Error(w, err.Error(), status)
			return
		}
		caller = c
	}
	defer e.g.callers.enter(r, caller)()
	r = r.WithContext(withPolicy(r.Context(), caller.Policy))
	e.g.AwaitStartup(r.Context())
	w = &unbufferedEvents{w: w}
	if wantsJSONAnswer(r, m) {
		w = &jsonAnswer{w: w}
	}
	if m.stateless(r.Header) || opts.Stateless {
		if m.method == methodListen {
			e.serveListen(w, r, m, caller, opts)
			return
		}
		e.stateless.ServeHTTP(w, r)
		return
	}
	e.serveSessioned(w, r, caller, opts)
}

// methodListen opens a stream of notifications in the stateless revision.
const methodListen = "subscriptions/listen"

// serveListen serves a subscriptions/listen request. Its stream is held
// open like a session, with a server session behind it, for as long as the
// client keeps it: it takes a place within MaxSessions and
// MaxSessionsPerIdentity while open, so that clients of the stateless
// revision are bound as those with sessions are.
func (e *Edge) serveListen(w http.ResponseWriter, r *http.Request, m message, caller Caller, opts *edgeSettings) {
	settle, err := e.g.sessions.reserve(caller.SessionOwner(), opts.MaxSessions, opts.MaxSessionsPerIdentity, nil)
	if err != nil {
		e.g.logger.Warn("listen stream refused: " + err.Error())
		writeJSONRPCError(w, http.StatusServiceUnavailable, m.id, -32000, err.Error())
		return
	}
	defer settle("") // the stream's place, given back when it ends
	e.stateless.ServeHTTP(w, r)
}

// serveSessioned serves a request of an earlier revision with sessions: a
// session ID must have been created under the caller's identity (another
// identity is told the session does not exist), and a request that may
// create a session must find a place for it within the limits.
func (e *Edge) serveSessioned(w http.ResponseWriter, r *http.Request, caller Caller, opts *edgeSettings) {
	identity := caller.SessionOwner()
	if id := r.Header.Get(headerSessionID); id != "" {
		if owner, ok := e.g.sessions.owner(id); ok && owner != identity {
			e.g.logger.Warn("session ID presented by another caller; refused")
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		if r.Method == http.MethodGet {
			e.sessioned.ServeHTTP(w, r) // the session's stream: open as long as the session
			return
		}
		defer e.enterSession(id)()
		if r.Method != http.MethodDelete {
			e.sessioned.ServeHTTP(w, r)
			return
		}
		// A session ended by its client gives its places back at once,
		// initialized or not.
		status := &statusRecorder{ResponseWriter: w}
		e.sessioned.ServeHTTP(status, r)
		if status.code/100 == 2 {
			e.g.sessions.drop(id)
		}
		return
	}
	if r.Method != http.MethodPost {
		e.sessioned.ServeHTTP(w, r)
		return
	}
	settle, err := e.g.sessions.reserve(identity, opts.MaxSessions, opts.MaxSessionsPerIdentity, e)
	if err != nil {
		e.g.logger.Warn("client session refused: " + err.Error())
		writeJSONRPCError(w, http.StatusServiceUnavailable, nil, -32000, err.Error())
		return
	}
	rec := &sessionRecorder{ResponseWriter: w, settle: settle}
	defer rec.settleOnce("")
	e.sessioned.ServeHTTP(rec, r)
	if id := rec.Header().Get(headerSessionID); id != "" && e.retiring.retired() {
		e.g.closeSessions(id) // made as the edge was retired: no one can reach it
	}
}

// checkHost applies AllowedHosts, or without them the protection against
// DNS rebinding: a request that arrived on loopback must name a loopback
// host. It returns why a request is refused, or "".
func checkHost(r *http.Request, allowedHosts []string) string {
	if len(allowedHosts) > 0 {
		if !hostAllowed(r.Host, allowedHosts) {
			return fmt.Sprintf("host %q is not an allowed host of this MCP gateway", r.Host)
		}
		return ""
	}
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil {
		if isLoopbackAddr(local) && !isLoopback(r.Host) {
			return fmt.Sprintf("Forbidden: invalid Host header %q", r.Host)
		}
	}
	return ""
}

// hostAllowed reports whether host is one of the allowed hosts (exact, or
// "*.example.com" for its subdomains), ignoring the port and an IPv6
// address's brackets.
func hostAllowed(host string, allowed []string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	for _, a := range allowed {
		a = strings.ToLower(strings.Trim(a, "[]"))
		if host == a || (strings.HasPrefix(a, "*.") && strings.HasSuffix(host, a[1:])) {
			return true
		}
	}
	return false
}

// isLoopback reports whether addr (a host, with or without a port) is a
// loopback address or localhost.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// isLoopbackAddr is isLoopback(a.String()), without formatting a TCP
// address to parse it again.
func isLoopbackAddr(a net.Addr) bool {
	if tcp, ok := a.(*net.TCPAddr); ok {
		// String writes a zone after the address, which isLoopback's
		// parse does not accept.
		return tcp.Zone == "" && tcp.IP.IsLoopback()
	}
	return isLoopback(a.String())
}

// sessionRecorder settles a session reservation with the session ID the
// MCP handler assigns, as its response headers go out.
type sessionRecorder struct {
	http.ResponseWriter
	settle  func(id string)
	settled bool
}

func (s *sessionRecorder) settleOnce(id string) {
	if !s.settled {
		s.settled = true
		s.settle(id)
	}
}

func (s *sessionRecorder) WriteHeader(code int) {
	s.settleOnce(s.Header().Get(headerSessionID))
	s.ResponseWriter.WriteHeader(code)
}

func (s *sessionRecorder) Write(b []byte) (int, error) {
	s.settleOnce(s.Header().Get(headerSessionID))
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the flusher underneath.
func (s *sessionRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// statusRecorder notes the status of a response.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the flusher underneath.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

type policyKey struct{}

func withPolicy(ctx context.Context, policy int) context.Context {
	return context.WithValue(ctx, policyKey{}, policy)
}

func policyOf(ctx context.Context) int {
	i, _ := ctx.Value(policyKey{}).(int)
	return i
}
