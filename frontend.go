package mcpgateway

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/caddyserver/caddy/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// frontends hold, per gateway name, what outlives a config reload: the
// gateway (its MCP servers and client sessions) and the streamable HTTP
// handler that knows the session IDs. A reload hands the new config to
// the same frontend, so clients keep their sessions and calls in flight
// finish.
var frontends = caddy.NewUsagePool()

// DefaultName names a gateway whose config gives it no name.
const DefaultName = "default"

type frontend struct {
	name string
	gw   *gateway.Gateway
	http atomic.Pointer[httpFrontend]

	mu          sync.Mutex
	generations []*Handler // the handlers using it, oldest first; the newest's config is in force
}

// httpFrontend is the streamable HTTP handler and the options it was made
// with: options it cannot change mean a new handler (and new sessions).
type httpFrontend struct {
	handler http.Handler
	options string
}

// Destruct ends the gateway when no config uses it any more.
func (f *frontend) Destruct() error { return f.gw.Close() }

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
	defer f.mu.Unlock()
	for _, other := range f.generations {
		if other.loadContext == h.loadContext {
			return fmt.Errorf("two mcp_gateway handlers in this config are named %q; give each its own `name`", h.name())
		}
	}
	if loaded {
		if err := f.gw.Update(cfg, ups, opts); err != nil {
			return err
		}
	}
	f.generations = append(f.generations, h)
	h.attached = true
	h.useHTTP(f)
	return nil
}

// useHTTP makes sure f serves HTTP with h's options, replacing the handler
// (and so the sessions it knows) only if they changed.
func (h *Handler) useHTTP(f *frontend) {
	timeout := DefaultSessionTimeout
	if h.SessionTimeout > 0 {
		timeout = timeDuration(h.SessionTimeout)
	}
	options := fmt.Sprintf("stateless=%v timeout=%v localhost-protection=%v max-body=%d", h.Stateless, timeout, len(h.AllowedHosts) == 0, h.MaxRequestBody)
	if cur := f.http.Load(); cur != nil {
		if cur.options == options {
			return
		}
		h.logger.Warn("session settings changed: existing client sessions end and clients start new ones", zap.String("gateway", f.name))
	}
	gw := f.gw
	f.http.Store(&httpFrontend{options: options, handler: mcp.NewStreamableHTTPHandler(
		func(r *http.Request) *mcp.Server { return gw.ServerFor(policyOf(r)) },
		&mcp.StreamableHTTPOptions{
			Stateless:                  h.Stateless,
			SessionTimeout:             timeout,
			Logger:                     h.sdkLogger,
			DisableLocalhostProtection: len(h.AllowedHosts) > 0,
			MaxRequestBodyBytes:        int64(h.MaxRequestBody),
		})})
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
		prev.useHTTP(f)
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
