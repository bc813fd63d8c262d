package gateway

import (
	"context"
	"errors"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ClientRelay makes an upstream connection one client's own: it sets the
// client capabilities the connection declares, and handles what the
// upstream sends a client. Relay and the question relay of a held call
// (pending.go) are the two kinds.
type ClientRelay interface {
	configure(*mcp.ClientOptions)
	install(*mcp.Client)
}

// Relay connects one client session's own upstream session to that client:
// the upstream session advertises the client's capabilities (sampling,
// elicitation, and roots to an upstream with RelayRoots), and what the
// upstream sends a client (requests for sampling, elicitation and those
// roots, log messages) reaches this client. Each
// is sent in the context of the client's call in flight to that upstream,
// if there is one, so that it travels on that call's stream, and is
// cancelled with it; a roots/list request, which is about the session and
// not the call, outlives the call (listRoots).
type Relay struct {
	session *mcp.ServerSession
	caps    *mcp.ClientCapabilities

	mu    sync.Mutex
	calls []context.Context // the client's calls in flight on this upstream session, oldest first
}

// newRelay makes the relay of session to an upstream; relayRoots is the
// upstream's RelayRoots.
func newRelay(session *mcp.ServerSession, relayRoots bool) *Relay {
	var declared *mcp.ClientCapabilities
	if p := session.InitializeParams(); p != nil {
		declared = p.Capabilities
	}
	return &Relay{session: session, caps: callerCapabilities(declared, true, relayRoots)}
}

// configure sets the upstream client's capabilities and handlers to the
// downstream client's.
func (r *Relay) configure(opts *mcp.ClientOptions) {
	opts.Capabilities = r.caps
	if r.caps.Sampling != nil {
		if r.caps.Sampling.Tools != nil {
			opts.CreateMessageWithToolsHandler = func(ctx context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
				ctx, done := r.downstreamContext(ctx)
				defer done()
				return r.session.CreateMessageWithTools(ctx, req.Params)
			}
		} else {
			opts.CreateMessageHandler = func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				ctx, done := r.downstreamContext(ctx)
				defer done()
				return r.session.CreateMessage(ctx, req.Params)
			}
		}
	}
	if r.caps.Elicitation != nil {
		// elicitation/create itself is relayed by install's middleware.
		opts.ElicitationCompleteHandler = func(ctx context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
			ctx, done := r.downstreamContext(ctx)
			defer done()
			_ = r.session.NotifyElicitationComplete(ctx, req.Params)
		}
	}
	opts.LoggingMessageHandler = func(ctx context.Context, req *mcp.LoggingMessageRequest) {
		ctx, done := r.downstreamContext(ctx)
		defer done()
		_ = r.session.Log(ctx, req.Params)
	}
}

// install adds what ClientOptions cannot express: roots/list answered by
// asking the downstream client (refused if the upstream is not to learn
// its roots), and elicitation/create relayed as it is.
// The SDK's own elicitation handling checks the requested schema against
// its reading of the spec and rejects some valid ones (titled multi-select
// enums); a gateway passes the request on and lets the two ends judge.
func (r *Relay) install(c *mcp.Client) {
	c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch {
			case method == "roots/list":
				if r.caps.RootsV2 == nil {
					return nil, refuseRoots()
				}
				return r.listRoots(ctx)
			case method == "elicitation/create" && r.caps.Elicitation != nil:
				params, ok := req.GetParams().(*mcp.ElicitParams)
				if !ok || params == nil {
					break
				}
				ctx, done := r.downstreamContext(ctx)
				defer done()
				return elicitVerbatim(ctx, r.session, params)
			}
			return next(ctx, method, req)
		}
	})
}

// verbatimSchemaKey carries an elicitation's requested schema past
// ServerSession.Elicit, which would otherwise validate it and the answer.
type verbatimSchemaKey struct{}

// elicitVerbatim sends params to the client through ss.Elicit with the
// schema held back, so the SDK neither checks nor rewrites the request or
// the answer; sendVerbatimSchema puts the schema back on the wire.
func elicitVerbatim(ctx context.Context, ss *mcp.ServerSession, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	p := *params
	if p.RequestedSchema != nil {
		if p.Mode == "" {
			p.Mode = "form"
		}
		ctx = context.WithValue(ctx, verbatimSchemaKey{}, p.RequestedSchema)
		p.RequestedSchema = nil
	}
	return ss.Elicit(ctx, &p)
}

// sendVerbatimSchema is server sending middleware: it restores the schema
// elicitVerbatim held back.
func sendVerbatimSchema(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		schema := ctx.Value(verbatimSchemaKey{})
		params, ok := req.GetParams().(*mcp.ElicitParams)
		if method != "elicitation/create" || schema == nil || !ok || params == nil {
			return next(ctx, method, req)
		}
		p := *params
		p.RequestedSchema = schema
		ss, _ := req.GetSession().(*mcp.ServerSession)
		return next(ctx, method, &mcp.ServerRequest[*mcp.ElicitParams]{Session: ss, Params: &p})
	}
}

// track records a client call in flight on this upstream session; the
// returned function forgets it.
func (r *Relay) track(ctx context.Context) (done func()) {
	r.mu.Lock()
	r.calls = append(r.calls, ctx)
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		for i, c := range r.calls {
			if c == ctx {
				r.calls = append(r.calls[:i], r.calls[i+1:]...)
				return
			}
		}
	}
}

// listRoots asks the downstream client for its roots. A roots/list is
// about the session, not about a call: an upstream asks as its session
// starts (during the client's first call, or just after it) and when told
// the roots changed. So it goes on the client's standalone stream, and,
// for a client without one open, on the newest call's stream; either way
// it is cancelled only when the upstream withdraws it, not when that call
// ends, since the client may answer after.
func (r *Relay) listRoots(upstreamCtx context.Context) (*mcp.ListRootsResult, error) {
	ask := func(base context.Context) (*mcp.ListRootsResult, error) {
		ctx, cancel := context.WithCancel(base)
		defer context.AfterFunc(upstreamCtx, cancel)()
		defer cancel()
		return r.session.ListRoots(ctx, &mcp.ListRootsParams{})
	}
	res, err := ask(context.Background())
	if !rejectedByTransport(err) {
		return res, err
	}
	r.mu.Lock()
	var call context.Context
	if n := len(r.calls); n > 0 {
		call = r.calls[n-1]
	}
	r.mu.Unlock()
	if call == nil {
		return nil, err
	}
	return ask(context.WithoutCancel(call))
}

// rejectedByTransport reports whether err says the message was never sent.
func rejectedByTransport(err error) bool {
	var wire *jsonrpc.Error
	return errors.As(err, &wire) && wire.Code == codeRejectedByTransport
}

// downstreamContext is the context to send to the downstream client in:
// the newest call in flight (so the message travels on that call's
// stream), or, with none, a fresh one (the client's standalone stream);
// either way cancelled also when the upstream's own request ends. The
// upstream's context itself is never used: its values belong to the
// upstream connection.
func (r *Relay) downstreamContext(upstreamCtx context.Context) (context.Context, func()) {
	r.mu.Lock()
	base := context.Background()
	if n := len(r.calls); n > 0 {
		base = r.calls[n-1]
	}
	r.mu.Unlock()
	ctx, cancel := context.WithCancel(base)
	stop := context.AfterFunc(upstreamCtx, cancel)
	return ctx, func() { stop(); cancel() }
}
