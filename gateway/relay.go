package gateway

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Relay connects one client session's own upstream session to that client:
// the upstream session advertises the client's capabilities (sampling,
// elicitation, roots), and what the upstream sends a client (requests for
// sampling, elicitation and roots, log messages) reaches this client. Each
// is sent in the context of the client's call in flight to that upstream,
// if there is one, so that it travels on that call's stream, and is
// cancelled with it.
type Relay struct {
	session *mcp.ServerSession
	caps    *mcp.ClientCapabilities

	mu    sync.Mutex
	calls []context.Context // the client's calls in flight on this upstream session, oldest first
}

func newRelay(session *mcp.ServerSession) *Relay {
	r := &Relay{session: session, caps: &mcp.ClientCapabilities{}}
	if p := session.InitializeParams(); p != nil && p.Capabilities != nil {
		c := p.Capabilities
		r.caps = &mcp.ClientCapabilities{Sampling: c.Sampling, Elicitation: c.Elicitation, RootsV2: c.RootsV2}
	}
	return r
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
		opts.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			ctx, done := r.downstreamContext(ctx)
			defer done()
			return r.session.Elicit(ctx, req.Params)
		}
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
// asking the downstream client.
func (r *Relay) install(c *mcp.Client) {
	if r.caps.RootsV2 == nil {
		return
	}
	c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "roots/list" {
				return next(ctx, method, req)
			}
			ctx, done := r.downstreamContext(ctx)
			defer done()
			return r.session.ListRoots(ctx, &mcp.ListRootsParams{})
		}
	})
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
