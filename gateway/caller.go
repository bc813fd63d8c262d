package gateway

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// Caller is who a request comes from, as the server in front of the
// gateway decided it (Caddy's matchers and authentication, say): the
// access rule the request is under, the identity its sessions and request
// state are bound to, and the header values its upstream calls carry.
type Caller struct {
	// Policy is the index of the access rule (Options.Access) the request
	// is under.
	Policy int
	// PolicyName names that rule in logs; "" for an unnamed rule.
	PolicyName string
	// User is the authenticated user, or "" when the request carries none.
	User string
	// UpstreamHeaders are header values that depend on the request (the
	// caller's identity forwarded to an upstream, say), by upstream name.
	UpstreamHeaders map[string]http.Header
}

// Identity is what binds a session or a request state to its caller: the
// access rule and the user. Two callers under the same rule without a
// user share an identity.
func (c Caller) Identity() string {
	return strconv.Itoa(c.Policy) + "/" + c.User
}

// SessionOwner is what a session of an earlier revision is bound to: the
// user, when the request has one, so that one user's session may carry
// requests under different access rules (a stricter rule for tools/call,
// say: each request is still served by its own rule); else the access rule,
// all that tells anonymous callers apart.
func (c Caller) SessionOwner() string {
	if c.User != "" {
		return "user:" + c.User
	}
	return "policy:" + strconv.Itoa(c.Policy)
}

// String is the caller as logs show it: the policy's name (or its place,
// "default" for the first) and the user, e.g. "admins/alice",
// "default/-".
func (c Caller) String() string {
	policy := c.PolicyName
	switch {
	case policy != "":
	case c.Policy == 0:
		policy = "default"
	default:
		policy = "policy" + strconv.Itoa(c.Policy+1)
	}
	user := c.User
	if user == "" {
		user = "-"
	}
	return policy + "/" + user
}

// Identify decides a request's Caller, or refuses the request: an error
// wrapping ErrForbidden is answered with 403, any other with 500.
type Identify func(*http.Request) (Caller, error)

// callerHeader carries, from the gateway's HTTP edge to its MCP handlers,
// the key under which the edge keeps the request's Caller. The edge
// replaces any value a client sent, so a client cannot pose as another.
const callerHeader = "Mcp-Gateway-Caller"

// callers holds the Caller of each request the edge is serving, by key.
type callers struct {
	next atomic.Uint64
	byID sync.Map // key -> Caller
}

// enter records c for the duration of r's handling and returns the
// function that forgets it.
func (cs *callers) enter(r *http.Request, c Caller) (leave func()) {
	key := strconv.FormatUint(cs.next.Add(1), 36)
	cs.byID.Store(key, c)
	r.Header.Set(callerHeader, key)
	return func() { cs.byID.Delete(key) }
}

// of returns the Caller of the request whose MCP extra is extra.
func (cs *callers) of(extra *mcp.RequestExtra) (Caller, bool) {
	if extra == nil || extra.Header == nil {
		return Caller{}, false
	}
	v, ok := cs.byID.Load(extra.Header.Get(callerHeader))
	if !ok {
		return Caller{}, false
	}
	return v.(Caller), true
}

// forgotten reports whether the request whose MCP extra is extra came
// through the edge but its Caller is no longer known: its HTTP exchange has
// ended (the client hung up), and the SDK handles it late.
func (cs *callers) forgotten(extra *mcp.RequestExtra) bool {
	if extra == nil || extra.Header == nil {
		return false
	}
	key := extra.Header.Get(callerHeader)
	if key == "" {
		return false
	}
	_, known := cs.byID.Load(key)
	return !known
}

// errCallerGone refuses a request whose HTTP exchange ended before it was
// handled.
var errCallerGone = refuse(jsonrpc.CodeInvalidRequest,
	"the HTTP request this message came in has ended; send it again")

// knownCallersOnly is receiving middleware for a view's server: a request
// that came through the edge is served only while the edge knows its
// Caller. One handled after its client hung up (behind a long batch, say)
// would find no Caller, and be judged by the access rule of its session's
// first request rather than its own: it is refused instead. Notifications
// carry no policy and go on (notifications/initialized comes after its
// HTTP exchange has been answered).
func (g *Gateway) knownCallersOnly(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if !strings.HasPrefix(method, "notifications/") && g.callers.forgotten(req.GetExtra()) {
			g.logger.Debug("request refused: its HTTP exchange ended before it was handled", zap.String("method", method))
			return nil, errCallerGone
		}
		return next(ctx, method, req)
	}
}

// callerOf is the Caller of a request the gateway's handlers serve; the
// zero Caller (policy 0, no user) when the request did not come through
// the edge (a test serving the MCP server directly).
func (g *Gateway) callerOf(extra *mcp.RequestExtra) Caller {
	c, _ := g.callers.of(extra)
	return c
}
