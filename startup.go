package mcpgateway

import (
	"fmt"
	"sync"

	"github.com/caddyserver/caddy/v2"
)

func init() {
	caddy.RegisterModule(new(upstreamStarter))
}

// upstreamStarter is a Caddy app that starts the upstream connections of a
// config's mcp_gateway handlers when that config starts running. Handlers
// provision their upstreams without connecting, so a config that is only
// checked (caddy validate provisions it but never starts its apps) reaches
// no upstream and starts no stdio process.
//
// Handlers load it with ctx.App, which makes it part of their config
// whether or not the config names it.
type upstreamStarter struct {
	mu       sync.Mutex
	handlers []*Handler
	names    map[string]bool // gateway names claimed in this config
}

// CaddyModule returns the Caddy module information.
func (*upstreamStarter) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "mcp_gateway",
		New: func() caddy.Module { return new(upstreamStarter) },
	}
}

// claim reserves a gateway name in this config: two handlers of one config
// with the same name (two unnamed ones, say) would share one gateway.
func (a *upstreamStarter) claim(name string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.names[name] {
		return fmt.Errorf("two mcp_gateway handlers in this config are named %q; give each its own `name`", name)
	}
	if a.names == nil {
		a.names = map[string]bool{}
	}
	a.names[name] = true
	return nil
}

// add registers a provisioned handler whose upstreams Start connects.
func (a *upstreamStarter) add(h *Handler) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.handlers = append(a.handlers, h)
}

// Start connects every registered handler's upstreams (those a reload
// kept are connected already), then checks what can only be checked once
// upstreams answer: names two upstreams would both expose directly. A
// collision fails the config's start, so a reload keeps the config that
// works.
func (a *upstreamStarter) Start() error {
	a.mu.Lock()
	handlers := a.handlers
	a.handlers = nil
	a.mu.Unlock()
	for _, h := range handlers {
		for _, u := range h.upstreamsInUse {
			u.Start()
		}
	}
	for _, h := range handlers {
		if err := h.checkNameCollisions(); err != nil {
			return err
		}
	}
	return nil
}

// Stop does nothing: handlers release their upstreams in Cleanup.
func (*upstreamStarter) Stop() error { return nil }

// Interface guards.
var (
	_ caddy.App    = (*upstreamStarter)(nil)
	_ caddy.Module = (*upstreamStarter)(nil)
)
