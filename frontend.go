package mcpgateway

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

// frontends hold, per gateway name, what outlives a config reload: the
// gateway (its MCP servers and client sessions) and the HTTP edge that
// knows the session IDs. A reload hands the new config to the same
// frontend, so clients keep their sessions and calls in flight finish.
var frontends = caddy.NewUsagePool()

// DefaultName names a gateway whose config gives it no name.
const DefaultName = "default"

type frontend struct {
	name string
	gw   *gateway.Gateway
	http atomic.Pointer[edgeFrontend]

	mu          sync.Mutex
	generations []*Handler // the handlers using it, oldest first; the newest's config is in force
}

// edgeFrontend is the HTTP edge and the options it was made with that it
// cannot change: a change of those means a new edge (and new sessions).
type edgeFrontend struct {
	edge    *gateway.Edge
	options string
}

// Destruct ends the gateway when no config uses it any more.
func (f *frontend) Destruct() error { return f.gw.Close() }

// edge is the HTTP edge requests go to.
func (f *frontend) edge() *gateway.Edge { return f.http.Load().edge }

// newest is the handler whose config is in force.
func (f *frontend) newest() *Handler {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n := len(f.generations); n > 0 {
		return f.generations[n-1]
	}
	return nil
}

// identify decides a request's caller with the config in force, so that a
// reload that changes only access policies or the identity takes effect
// without a new edge.
func (f *frontend) identify(r *http.Request) (gateway.Caller, error) {
	h := f.newest()
	if h == nil {
		return gateway.Caller{}, fmt.Errorf("%w: the gateway %q is shutting down", gateway.ErrForbidden, f.name)
	}
	return h.identify(r)
}

// name is the handler's frontend name.
func (h *Handler) name() string {
	if h.Name == "" {
		return DefaultName
	}
	return h.Name
}

// attach provisions h's frontend: the existing one of that name (a
// reload), updated to h's config, or a new one.
func (h *Handler) attach(ctx caddy.Context, cfg gateway.Config, ups []*gateway.Upstream, opts gateway.Options) error {
	h.resolved, h.upstreamsInUse, h.gatewayOptions = cfg, ups, opts
	h.loadContext = ctx.Context
	val, loaded, err := frontends.LoadOrNew(h.name(), func() (caddy.Destructor, error) {
		gw, err := gateway.New(cfg, ups, opts)
		if err != nil {
			return nil, err
		}
		return &frontend{name: h.name(), gw: gw}, nil
	})
	if err != nil {
		return err
	}
	f := val.(*frontend)
	h.frontend = f
	f.mu.Lock()
	for _, other := range f.generations {
		if other.loadContext == h.loadContext {
			f.mu.Unlock()
			return fmt.Errorf("two mcp_gateway handlers in this config are named %q; give each its own `name`", h.name())
		}
	}
	if loaded {
		if err := f.gw.Update(cfg, ups, opts); err != nil {
			f.mu.Unlock()
			return err
		}
	}
	f.generations = append(f.generations, h)
	h.attached = true
	f.mu.Unlock()
	return h.useEdge(f)
}

// useEdge makes sure f serves HTTP with h's options, replacing the edge
// (and so the sessions it knows, which end: see gateway.Edge.Retire) only
// if they changed.
func (h *Handler) useEdge(f *frontend) error {
	timeout := DefaultSessionTimeout
	if h.SessionTimeout > 0 {
		timeout = timeDuration(h.SessionTimeout)
	}
	opts := gateway.EdgeOptions{
		Identify:               f.identify,
		Stateless:              h.Stateless,
		SessionTimeout:         timeout,
		MaxSessions:            h.sessionLimit(),
		MaxSessionsPerIdentity: h.MaxSessionsPerIdentity,
		MaxRequestBody:         h.MaxRequestBody,
		AllowedHosts:           h.AllowedHosts,
		AllowedOrigins:         h.AllowedOrigins,
		Logger:                 h.sdkLogger,
	}
	// Only the session timeout is fixed in an edge; the rest changes in
	// place, and the sessions carry on.
	options := fmt.Sprintf("session_timeout=%v", opts.SessionTimeout)
	if cur := f.http.Load(); cur != nil {
		if cur.options == options {
			return cur.edge.Update(opts)
		}
		h.logger.Warn("session_timeout changed: existing client sessions end and clients start new ones", zap.String("gateway", f.name))
	}
	edge, err := f.gw.NewEdge(opts)
	if err != nil {
		return err
	}
	if replaced := f.http.Swap(&edgeFrontend{options: options, edge: edge}); replaced != nil {
		replaced.edge.Retire() // its sessions end: their clients start new ones
	}
	return nil
}

// detach takes h off its frontend. If h's config was in force (a reload
// that failed, or a config unloaded before its successor), the newest
// remaining config takes over again.
func (h *Handler) detach() {
	f := h.frontend
	if f == nil || !h.attached {
		return
	}
	h.attached = false
	f.mu.Lock()
	newest := len(f.generations) > 0 && f.generations[len(f.generations)-1] == h
	for i, other := range f.generations {
		if other == h {
			f.generations = append(f.generations[:i], f.generations[i+1:]...)
			break
		}
	}
	var prev *Handler
	if newest && len(f.generations) > 0 {
		prev = f.generations[len(f.generations)-1]
	}
	f.mu.Unlock()
	if prev != nil {
		if err := f.gw.Update(prev.resolved, prev.upstreamsInUse, prev.gatewayOptions); err != nil {
			h.logger.Error("restoring the previous gateway config", zap.Error(err))
		}
		if err := prev.useEdge(f); err != nil {
			h.logger.Error("restoring the previous gateway's HTTP settings", zap.Error(err))
		}
	}
}

// liveFrontends are the gateways this process runs, in no particular
// order.
func liveFrontends() []*frontend {
	var out []*frontend
	frontends.Range(func(_, value any) bool {
		if f, ok := value.(*frontend); ok {
			out = append(out, f)
		}
		return true
	})
	return out
}
