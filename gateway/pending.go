package gateway

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// A held call serves a client of the stateless revision that calls a tool
// of an upstream of an earlier revision with `session per_client`: such an
// upstream asks its questions (sampling, elicitation, roots) with requests
// of its own, in the middle of the call, on the session. The gateway gives
// the call an upstream session of its own, declaring the caller's
// capabilities; each question the upstream asks becomes an input_required
// result for the caller while the upstream's request waits, and the
// caller's retry delivers the answers to the waiting requests. The call
// lives in this gateway instance, so the retry must come back to it: its
// request state starts with the instance's prefix (session_id_prefix).

// questionWindow is how long a held call waits, after the upstream's first
// question, for more asked at the same time, so that they go to the caller
// in one round.
const questionWindow = 50 * time.Millisecond

// cancelNoticeGrace is how long a cancelled held call keeps its upstream
// session open for the cancellation to reach the upstream.
const cancelNoticeGrace = time.Second

// heldGrace is how long an ended held call's result waits for its caller.
const heldGrace = time.Minute

// heldCall is a call held open across the caller's rounds of answers.
type heldCall struct {
	id       string
	upstream *Upstream
	// caller, domain and tool (its catalog and upstream names) say whose
	// call it is and of what, so that a reload can tell whether the caller
	// may still resume it (see resumable).
	caller                    Caller
	domain, local, upstreamAs string
	asked                     chan *question // questions the upstream asked, not yet handed out
	done                      chan heldOutcome
	cancel                    context.CancelFunc
	// ended is closed when the call is over: it ended, or was cancelled
	// (its caller cannot answer, or the gateway is closing). A question
	// still waiting then gets no answer.
	ended <-chan struct{}

	mu      sync.Mutex
	waiting map[string]*question // handed to the caller, awaiting its answer
	nextID  int
	outcome *heldOutcome // once the call ended
}

// question is one request the upstream put to the client, waiting.
type question struct {
	id     string
	params mcp.InputRequest
	answer chan mcp.InputResponse
}

// heldOutcome is how the upstream call ended.
type heldOutcome struct {
	res *mcp.CallToolResult
	err error
}

// heldCalls are the calls this gateway holds, by ID.
type heldCalls struct {
	mu   sync.Mutex
	byID map[string]*heldCall
}

func (h *heldCalls) add(c *heldCall) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byID == nil {
		h.byID = make(map[string]*heldCall)
	}
	h.byID[c.id] = c
}

func (h *heldCalls) get(id string) *heldCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.byID[id]
}

func (h *heldCalls) remove(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.byID, id)
}

// closeAll ends every held call (the gateway is closing).
func (h *heldCalls) closeAll() {
	h.mu.Lock()
	calls := h.byID
	h.byID = nil
	h.mu.Unlock()
	for _, c := range calls {
		c.cancel()
	}
}

// holdsCalls reports whether a request to domain d by a stateless caller
// must be held: d is per_client and its upstream asks with requests of its
// own (it speaks an earlier revision).
func (g *Gateway) holdsCalls(x *inputExchange, d *Domain) bool {
	cfg := g.current().byName[d.Name]
	return x.stateless && cfg != nil && cfg.Session == SessionPerClient && d.upstream != nil &&
		d.upstream.ProtocolVersion() != "" && d.upstream.ProtocolVersion() < StatelessRevision
}

// startHeldCall makes the call on an upstream session of its own and
// returns what the caller gets first: the result, or the upstream's first
// questions.
func (g *Gateway) startHeldCall(ctx context.Context, x *inputExchange, t *Tool, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	cfg := g.current().byName[t.Domain.Name]
	// Its upstream session is a client's own: it counts against
	// max_client_sessions, and the caller's share of them, while it lasts.
	release, err := g.clients.reserve(t.Domain.Name, shareIdentity(x.caller), cfg.ClientSessionLimit())
	if err != nil {
		return nil, err
	}
	callCtx, cancel := context.WithCancel(context.Background())
	c := &heldCall{
		id:         rand.Text(),
		caller:     x.caller,
		domain:     t.Domain.Name,
		local:      t.LocalName,
		upstreamAs: t.UpstreamName,
		asked:      make(chan *question, 16),
		done:       make(chan heldOutcome, 1),
		cancel:     cancel,
		ended:      callCtx.Done(),
		waiting:    make(map[string]*question),
	}
	c.upstream = NewUpstream(cfg.Connection, UpstreamOptions{
		Logger: g.logger.With(zap.String("upstream", t.Domain.Name), zap.String("held_call", c.id)),
		Relay:  &questionRelay{call: c, caps: x.capabilities()},
	})
	// The call outlives the caller's request (it waits for answers) but
	// not the upstream's timeout: the operator's bound on a call holds for
	// its questions too.
	callCtx = carryCallValues(callCtx, ctx)
	go func() {
		defer release()
		defer cancel()
		defer func() {
			if callCtx.Err() != nil {
				// Cancelled or timed out: the SDK tells the upstream with
				// a notifications/cancelled it sends in the background,
				// which closing the session at once would lose.
				time.Sleep(cancelNoticeGrace)
			}
			c.upstream.Close()
		}()
		res, err := c.upstream.CallTool(callCtx, params, nil)
		c.done <- heldOutcome{res: res, err: err}
		// A caller that never comes back for the result leaves it here
		// for heldGrace at most.
		time.AfterFunc(heldGrace, func() { g.held.remove(c.id) })
	}()
	g.held.add(c)
	// A reload between reading the config and holding the call may have
	// put it out of its caller's reach already.
	g.endHeldCallsOutOfReach(g.current())
	res, err := g.nextRound(ctx, x, c)
	if err != nil && ctx.Err() != nil {
		// The caller went away before its first round ended: no request
		// state names the call, so nobody can resume it.
		c.cancel()
		g.held.remove(c.id)
	}
	return res, err
}

// endHeldCallsOutOfReach ends the held calls whose callers s no longer
// lets resume them: their domain is gone or no longer per_client, or the
// tool is hidden from the caller's access rule. Their callers' retries
// are refused (as for any tool they may not use), so nobody would answer
// their questions: rather than hold the upstream's request, the call's
// upstream session and its place among max_client_sessions until the
// call's timeout, each ends now, its upstream's waiting questions
// answered with an error. A held call whose domain's connection changed
// (a rotated token) goes on, as calls in flight do across a reload.
func (g *Gateway) endHeldCallsOutOfReach(s *setup) {
	g.held.mu.Lock()
	var out []*heldCall
	for _, c := range g.held.byID {
		if !c.resumable(s) {
			out = append(out, c)
		}
	}
	g.held.mu.Unlock()
	for _, c := range out {
		g.logger.Info("a reload ended a call held for its caller's answers: the caller may no longer call the tool",
			zap.String("upstream", c.domain), zap.String("tool", QualifiedName(c.domain, c.local)))
		c.cancel()
		g.held.remove(c.id)
	}
}

// resumable reports whether s lets the held call's caller resume it.
func (c *heldCall) resumable(s *setup) bool {
	cfg := s.byName[c.domain]
	return cfg != nil && cfg.Session == SessionPerClient && s.mayCall(c.caller, c.domain, c.local, c.upstreamAs)
}

// mayCall reports whether s lets caller call the tool of domain known in
// the catalog as local and upstream as upstream: the domain is
// configured, shows the tool, and the caller's access rule allows it (as
// the catalog of the caller's view is built).
func (s *setup) mayCall(caller Caller, domain, local, upstream string) bool {
	cfg := s.byName[domain]
	if cfg == nil || !cfg.visible(upstream) || caller.Policy < 0 || caller.Policy >= len(s.rules) {
		return false
	}
	return s.rules[caller.Policy].allowsAny(QualifiedName(domain, local), QualifiedName(domain, upstream))
}

// resumeHeldCall delivers the caller's answers to the questions of held
// call id and returns what comes next.
func (g *Gateway) resumeHeldCall(ctx context.Context, x *inputExchange, id string, answers mcp.InputResponseMap) (*mcp.CallToolResult, error) {
	c := g.held.get(id)
	if c == nil {
		return nil, refuse(jsonrpc.CodeInvalidParams, "the call this requestState belongs to has ended (it timed out, or this gateway instance is not the one that holds it); send the request again without requestState and inputResponses")
	}
	c.mu.Lock()
	for id, a := range answers {
		if q, ok := c.waiting[id]; ok {
			delete(c.waiting, id)
			q.answer <- a
		}
	}
	c.mu.Unlock()
	return g.nextRound(ctx, x, c)
}

// nextRound waits for the held call to end or to ask: an ended call's
// result goes to the caller (and the call is forgotten); questions go with
// a sealed state naming the call, together with any asked before and still
// unanswered.
func (g *Gateway) nextRound(ctx context.Context, x *inputExchange, c *heldCall) (*mcp.CallToolResult, error) {
	select {
	case o := <-c.done:
		g.held.remove(c.id)
		return o.res, o.err
	default:
	}
	c.mu.Lock()
	unanswered := len(c.waiting) > 0
	c.mu.Unlock()
	if !unanswered {
		select {
		case o := <-c.done:
			g.held.remove(c.id)
			return o.res, o.err
		case q := <-c.asked:
			c.keep(q)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	// Take the questions asked at the same time, for one round.
	window := time.NewTimer(questionWindow)
	defer window.Stop()
collect:
	for {
		select {
		case q := <-c.asked:
			c.keep(q)
		case <-window.C:
			break collect
		}
	}
	c.mu.Lock()
	reqs := make(mcp.InputRequestMap, len(c.waiting))
	for id, q := range c.waiting {
		reqs[id] = q.params
	}
	c.mu.Unlock()
	if err := x.unanswerable(reqs); err != nil {
		c.cancel()
		g.held.remove(c.id)
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{}, InputRequests: reqs, RequestState: x.seal("", c.id)}, nil
}

// keep files a question the upstream asked as waiting for the caller.
func (c *heldCall) keep(q *question) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	q.id = fmt.Sprintf("q%d", c.nextID)
	c.waiting[q.id] = q
}

// questionRelay is the client side of a held call's upstream session: it
// declares the caller's capabilities, and turns each request the upstream
// makes of the client into a question for the caller, waiting for its
// answer.
type questionRelay struct {
	call *heldCall
	caps *mcp.ClientCapabilities
}

func (r *questionRelay) configure(opts *mcp.ClientOptions) {
	opts.Capabilities = r.caps
}

func (r *questionRelay) install(c *mcp.Client) {
	c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "sampling/createMessage", "elicitation/create", "roots/list":
				if method == "roots/list" && r.caps.RootsV2 == nil {
					return nil, refuseRoots()
				}
				ir, ok := req.GetParams().(mcp.InputRequest)
				if !ok {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: method + ": no parameters"}
				}
				return r.ask(ctx, ir)
			}
			return next(ctx, method, req)
		}
	})
}

// ask hands a question to the caller and waits for its answer, until
// the upstream withdraws the question or the call is over.
func (r *questionRelay) ask(ctx context.Context, ir mcp.InputRequest) (mcp.Result, error) {
	q := &question{params: ir, answer: make(chan mcp.InputResponse, 1)}
	select {
	case r.call.asked <- q:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-r.call.ended:
		return nil, errCallOver
	}
	select {
	case a := <-q.answer:
		res, ok := a.(mcp.Result)
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the client's answer is of no known kind"}
		}
		return res, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-r.call.ended:
		return nil, errCallOver
	}
}

// errCallOver answers a question of a held call that is over.
var errCallOver = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the call that asked this is over; its client will not answer"}
