// Package mcpgateway is the Caddy module http.handlers.mcp_gateway: one MCP
// endpoint at the edge in front of many upstream MCP servers. It adapts the
// gateway package to Caddy: config, placeholders, shared upstream
// connections across reloads, and HTTP.
package mcpgateway

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// upstreams holds live upstream connections, keyed by their connection
// config, so that a config reload keeps the connections (and stdio
// processes) of upstreams whose config did not change.
var upstreams = caddy.NewUsagePool()

// DefaultSessionTimeout closes client sessions idle for this long.
const DefaultSessionTimeout = 30 * time.Minute

// Handler is an MCP gateway: it serves MCP clients over streamable HTTP the
// three meta-tools over the merged catalog of its upstreams' tools.
type Handler struct {
	gateway.Config

	// SessionTimeout closes client sessions idle for this long. Default 30m.
	SessionTimeout caddy.Duration `json:"session_timeout,omitempty"`

	// Stateless serves every request without a session, so that any of
	// several gateway instances can answer any request. Server-to-client
	// requests are not possible then.
	Stateless bool `json:"stateless,omitempty"`

	gw       *gateway.Gateway
	http     http.Handler
	poolKeys []string
	logger   *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.mcp_gateway",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision resolves placeholders in the upstream configs, takes each
// upstream's connection from the pool (creating it if new), and builds the
// gateway and its HTTP handler.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	if err := h.Config.Validate(); err != nil {
		return err
	}
	repl := caddy.NewReplacer()
	cfg := h.Config
	cfg.Upstreams = make([]*gateway.UpstreamConfig, len(h.Upstreams))
	ups := make([]*gateway.Upstream, len(h.Upstreams))
	for i, uc := range h.Upstreams {
		resolved := *uc
		resolved.Connection = resolveConnection(uc.Connection, repl)
		cfg.Upstreams[i] = &resolved
		key := resolved.Connection.Key()
		logger := h.logger.With(zap.String("upstream", uc.Name))
		val, _, err := upstreams.LoadOrNew(key, func() (caddy.Destructor, error) {
			return gateway.NewUpstream(resolved.Connection, gateway.UpstreamOptions{Logger: logger, Discovery: true}), nil
		})
		if err != nil {
			return fmt.Errorf("upstream %q: %v", uc.Name, err)
		}
		h.poolKeys = append(h.poolKeys, key)
		ups[i] = val.(*gateway.Upstream)
	}
	gw, err := gateway.New(cfg, ups, gateway.Options{Logger: h.logger, SDKLogger: ctx.Slogger(), Stateless: h.Stateless})
	if err != nil {
		return err
	}
	h.gw = gw
	if err := h.checkNameCollisions(ctx); err != nil {
		return err
	}

	timeout := time.Duration(h.SessionTimeout)
	if timeout == 0 {
		timeout = DefaultSessionTimeout
	}
	h.http = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return gw.Server() }, &mcp.StreamableHTTPOptions{
		Stateless:      h.Stateless,
		SessionTimeout: timeout,
		Logger:         ctx.Slogger(),
	})
	return nil
}

// checkNameCollisions makes a name two upstreams would both expose
// directly a config error. That can only happen when two upstreams expose
// names without a prefix, and can only be known once they have answered,
// so only then does provisioning wait (boundedly) for the upstreams.
func (h *Handler) checkNameCollisions(ctx caddy.Context) error {
	if h.EffectiveMode() == gateway.ModeMeta {
		return nil
	}
	unprefixed := 0
	for _, u := range h.Upstreams {
		if u.EffectivePrefix() == "" {
			unprefixed++
		}
	}
	if unprefixed < 2 {
		return nil
	}
	select {
	case <-h.gw.Started():
	case <-ctx.Done():
	case <-time.After(gateway.DefaultStartupWait):
	}
	if c := h.gw.Collisions(); len(c) > 0 {
		return fmt.Errorf("%s", strings.Join(c, "; "))
	}
	return nil
}

// resolveConnection replaces Caddy's global placeholders ({env.*},
// {file.*}, ...) in every field that may hold a secret or a path.
func resolveConnection(c gateway.Connection, repl *caddy.Replacer) gateway.Connection {
	r := func(s string) string { return repl.ReplaceKnown(s, "") }
	c.URL = r(c.URL)
	c.Command = r(c.Command)
	c.Dir = r(c.Dir)
	if c.Args != nil {
		args := make([]string, len(c.Args))
		for i, a := range c.Args {
			args[i] = r(a)
		}
		c.Args = args
	}
	if c.Env != nil {
		env := make(map[string]string, len(c.Env))
		for k, v := range c.Env {
			env[k] = r(v)
		}
		c.Env = env
	}
	if c.Headers != nil {
		headers := make(http.Header, len(c.Headers))
		for k, vs := range c.Headers {
			for _, v := range vs {
				headers.Add(k, r(v))
			}
		}
		c.Headers = headers
	}
	return c
}

// Validate checks the config (Provision has already done so; this keeps
// the check where Caddy expects it).
func (h *Handler) Validate() error {
	return h.Config.Validate()
}

// ServeHTTP serves MCP over streamable HTTP. The gateway is a terminal
// handler: it answers every request its route gives it.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	h.gw.AwaitStartup(r.Context())
	h.http.ServeHTTP(w, r)
	return nil
}

// Cleanup closes the client sessions of this config's gateway and releases
// its upstreams: an upstream that the new config still uses stays
// connected; one it no longer uses is closed (its process ended).
func (h *Handler) Cleanup() error {
	if h.gw != nil {
		for ss := range h.gw.Server().Sessions() {
			_ = ss.Close()
		}
		_ = h.gw.Close()
		h.gw = nil
	}
	var firstErr error
	for _, key := range h.poolKeys {
		if _, err := upstreams.Delete(key); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	h.poolKeys = nil
	return firstErr
}

// Interface guards.
var (
	_ caddy.Module                = (*Handler)(nil)
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
