// Package mcpgateway is the Caddy module http.handlers.mcp_gateway: one MCP
// endpoint at the edge in front of many upstream MCP servers. It adapts the
// gateway package to Caddy: config, placeholders, shared upstream
// connections across reloads, and HTTP.
package mcpgateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
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

// DefaultMaxSessions is the default MaxSessions.
const DefaultMaxSessions = 10000

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

	// Access picks, per request, the tools it may see and call: the first
	// policy whose matchers match applies; a request no policy matches is
	// refused. No policies: everything is visible.
	Access []*AccessPolicy `json:"access,omitempty"`

	// AllowedHosts, if set, are the Host names (or "*.example.com")
	// requests may carry; others are refused. This replaces the default
	// protection against DNS rebinding (a request arriving on loopback
	// must name a loopback host), which would refuse every request behind
	// a proxy on the same machine.
	AllowedHosts []string `json:"allowed_hosts,omitempty"`

	// AllowedOrigins are origins ("https://app.example.com") from which
	// browsers may call the gateway cross-origin; other cross-origin
	// browser requests are refused. Same-origin and non-browser requests
	// are always allowed.
	AllowedOrigins []string `json:"allowed_origins,omitempty"`

	// Name tells this gateway apart from others in the same config; a
	// config reload hands each gateway's client sessions on to the
	// gateway of the same name. Default "default".
	Name string `json:"name,omitempty"`

	// MaxRequestBody bounds the body of a client request, in bytes.
	// Default 4 MiB.
	MaxRequestBody int64 `json:"max_request_body,omitempty"`

	// SessionIDPrefix starts the ID of every client session this gateway
	// creates, so that a front Caddy can route each session's requests to
	// the instance that has it (see docs/scaling.md). Placeholders such as
	// {env.INSTANCE} are resolved. Visible ASCII only.
	SessionIDPrefix string `json:"session_id_prefix,omitempty"`

	// LogValues adds tool calls' argument and result values (bounded) to
	// the one log line each call gets. Off by default: the line says who
	// called which tool, how long it took and how it ended.
	LogValues bool `json:"log_values,omitempty"`

	// MaxSessions bounds the client sessions open at once; a client that
	// would open one more gets HTTP 503 with a JSON-RPC error saying so.
	// Zero means DefaultMaxSessions; negative, no limit. The bound is
	// exact, also when many clients open sessions at once. A 2026-07-28
	// client's open subscriptions/listen stream counts as a session.
	MaxSessions int `json:"max_sessions,omitempty"`

	// MaxSessionsPerIdentity bounds the sessions one caller identity (see
	// Identity) may have open at once, so that one caller cannot take
	// every place MaxSessions allows. Zero means no bound of its own.
	MaxSessionsPerIdentity int `json:"max_sessions_per_identity,omitempty"`

	// StateSecret signs the request states the gateway hands clients of
	// the stateless revision when an upstream asks them something (multi
	// round-trip requests). Instances behind one balancer that may answer
	// each other's retries need the same one; without it each instance
	// signs with a random key of its own, so a retry must return to the
	// instance that issued its state. Use a placeholder such as
	// {env.MCP_STATE_SECRET}, so that the secret is not in the config.
	StateSecret string `json:"state_secret,omitempty"`

	// Identity names, with a Caddy placeholder, who a request comes from:
	// sessions and multi round-trip request state are bound to it (with
	// the request's access policy), per-identity limits count by it, and
	// logs show it. Default {http.auth.user.id}, set by basic_auth and
	// most authentication modules; after forward_auth, say
	// {http.request.header.X-Auth-User}; with client certificates,
	// {http.request.tls.client.subject}. A request for which it is empty
	// is bound by its access policy alone.
	Identity string `json:"identity,omitempty"`

	gw                *gateway.Gateway
	frontend          *frontend
	attached          bool
	released          bool            // the frontend reference has been given back
	loadContext       context.Context // the config load this handler belongs to
	resolved          gateway.Config
	upstreamsInUse    []*gateway.Upstream
	gatewayOptions    gateway.Options
	perRequestHeaders map[string]http.Header // per upstream: header values holding per-request placeholders
	poolKeys          []string
	logger            *zap.Logger
	sdkLogger         *slog.Logger
	noIdentityOnce    *sync.Once // the warning that a request has no identity
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
	h.logger, h.sdkLogger = ctx.Logger(), ctx.Slogger()
	h.noIdentityOnce = new(sync.Once)
	if h.MaxRequestBody < 0 {
		return errors.New("max_request_body must be positive")
	}
	if err := h.Validate(); err != nil {
		return err
	}
	app, err := ctx.App("mcp_gateway")
	if err != nil {
		return fmt.Errorf("loading the upstream starter: %v", err)
	}
	starter := app.(*upstreamStarter)
	if err := starter.claim(h.name()); err != nil {
		return err
	}
	if h.MaxSessionsPerIdentity < 0 {
		return errors.New("max_sessions_per_identity must be positive")
	}
	if err := gateway.ValidateAccessRules(h.accessRules()); err != nil {
		return fmt.Errorf("access: %v", err)
	}
	if err := h.provisionAccess(ctx); err != nil {
		return err
	}
	for _, o := range h.AllowedOrigins {
		if err := http.NewCrossOriginProtection().AddTrustedOrigin(o); err != nil {
			return fmt.Errorf("allowed_origins: %v", err)
		}
	}
	repl := caddy.NewReplacer()
	cfg := h.Config
	cfg.Upstreams = make([]*gateway.UpstreamConfig, len(h.Upstreams))
	ups := make([]*gateway.Upstream, len(h.Upstreams))
	h.perRequestHeaders = make(map[string]http.Header)
	for i, uc := range h.Upstreams {
		resolved := *uc
		resolved.Connection = resolveConnection(uc.Connection, repl)
		// Header values still holding placeholders depend on the request
		// ({http.auth.user.id}, ...): they go with each call, not with
		// the connection.
		for name, vs := range resolved.Headers {
			for _, v := range vs {
				if strings.Contains(v, "{") {
					if h.perRequestHeaders[uc.Name] == nil {
						h.perRequestHeaders[uc.Name] = http.Header{}
					}
					h.perRequestHeaders[uc.Name].Add(name, v)
				}
			}
			if _, perRequest := h.perRequestHeaders[uc.Name][name]; perRequest {
				delete(resolved.Headers, name)
			}
		}
		cfg.Upstreams[i] = &resolved
		key := resolved.SessionKey()
		logger := h.logger.With(zap.String("upstream", uc.Name))
		val, _, err := upstreams.LoadOrNew(key, func() (caddy.Destructor, error) {
			return gateway.NewUpstream(resolved.Connection, gateway.UpstreamOptions{Logger: logger, Discovery: true, Deferred: true, RelayRoots: uc.RelayRoots}), nil
		})
		if err != nil {
			return fmt.Errorf("upstream %q: %v", uc.Name, err)
		}
		h.poolKeys = append(h.poolKeys, key)
		ups[i] = val.(*gateway.Upstream)
	}
	if err := registerMetrics(ctx); err != nil {
		return fmt.Errorf("registering metrics: %v", err)
	}
	opts := gateway.Options{Logger: h.logger, SDKLogger: h.sdkLogger, Stateless: h.Stateless, Access: h.accessRules(),
		Observer: metricsObserver{gateway: h.name()}, LogValues: h.LogValues,
		SessionIDPrefix: repl.ReplaceKnown(h.SessionIDPrefix, ""), StateSecret: h.stateSecret(repl),
		Pins: pinsIn(ctx, h.name())}
	if err := h.attach(ctx, cfg, ups, opts); err != nil {
		return err
	}
	h.gw = h.frontend.gw
	starter.add(h)
	return nil
}

// checkNameCollisions makes a name two upstreams would both expose
// directly a config error. That can only happen when two upstreams expose
// names without a prefix, and can only be known once they have answered,
// so only then does starting the config wait (boundedly) for the
// upstreams.
func (h *Handler) checkNameCollisions() error {
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
	case <-h.loadContext.Done():
	case <-time.After(gateway.DefaultStartupWait):
	}
	if c := h.gw.Collisions(); len(c) > 0 {
		return fmt.Errorf("%s", strings.Join(c, "; "))
	}
	return nil
}

// stateSecret resolves StateSecret's placeholders; an unset variable
// resolves to nothing (never to the placeholder's own text, which anyone
// could read in the config). A configured secret that resolves to nothing
// is said in the log: each instance then signs with a random key.
func (h *Handler) stateSecret(repl *caddy.Replacer) string {
	if h.StateSecret == "" {
		return ""
	}
	secret := repl.ReplaceAll(h.StateSecret, "")
	if secret == "" {
		h.logger.Warn("state_secret resolves to nothing (an unset environment variable?): request states are signed with a random key of this instance's, so a multi round-trip retry must return to it")
	}
	return secret
}

// resolveConnection replaces Caddy's global placeholders ({env.*},
// {file.*}, ...) in every field that may hold a secret or a path. The
// values {env.*} and {file.*} give the fields that carry credentials go
// to Secrets, wherever they stand in the field: the URL's (but its host,
// which every connection error names), the headers' (also the constant
// part of a header that Provision sends per request), the arguments' and
// the environment's (but absolute paths, as the redactor keeps env
// values). Command and Dir name a program and a folder.
func resolveConnection(c gateway.Connection, repl *caddy.Replacer) gateway.Connection {
	r := func(s string) string { return repl.ReplaceKnown(s, "") }
	p := newPlaceholderSecrets(repl)
	filePath := func(v, _ string) bool { return gateway.IsFilePath(v) }
	c.URL = p.resolve(c.URL, isURLHost)
	c.Command = r(c.Command)
	c.Dir = r(c.Dir)
	if c.Args != nil {
		args := make([]string, len(c.Args))
		for i, a := range c.Args {
			args[i] = p.resolve(a, filePath)
		}
		c.Args = args
	}
	if c.Env != nil {
		env := make(map[string]string, len(c.Env))
		for k, v := range c.Env {
			env[k] = p.resolve(v, filePath)
		}
		c.Env = env
	}
	if c.Headers != nil {
		headers := make(http.Header, len(c.Headers))
		for k, vs := range c.Headers {
			for _, v := range vs {
				headers.Add(k, p.resolve(v, nil))
			}
		}
		c.Headers = headers
	}
	c.Secrets = p.list()
	return c
}

// isURLHost reports whether v is the host of URL rawURL, with or without
// its port.
func isURLHost(v, rawURL string) bool {
	u, err := url.Parse(rawURL)
	return err == nil && u.Host != "" && (v == u.Host || v == u.Hostname())
}

// Validate checks the config (Provision has already done so; this keeps
// the check where Caddy expects it).
func (h *Handler) Validate() error {
	if err := h.checkOptions(); err != nil {
		return err
	}
	return h.Config.Validate()
}

// ServeHTTP serves MCP over streamable HTTP through the gateway's HTTP
// edge (gateway.Edge), for clients of every protocol revision. The gateway
// is a terminal handler: it answers every request its route gives it.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	h.frontend.edge().ServeHTTP(w, r)
	return nil
}

// sessionLimit is MaxSessions with its default applied; 0 means none.
func (h *Handler) sessionLimit() int {
	switch {
	case h.MaxSessions == 0:
		return DefaultMaxSessions
	case h.MaxSessions < 0:
		return 0
	}
	return h.MaxSessions
}

// requestHeaders resolves the per-request upstream header values with
// the request's placeholders.
func (h *Handler) requestHeaders(repl *caddy.Replacer) map[string]http.Header {
	if len(h.perRequestHeaders) == 0 {
		return nil
	}
	resolved := make(map[string]http.Header, len(h.perRequestHeaders))
	for upstream, headers := range h.perRequestHeaders {
		m := make(http.Header, len(headers))
		for name := range headers {
			m.Set(name, repl.ReplaceAll(headers.Get(name), ""))
		}
		resolved[upstream] = m
	}
	return resolved
}

// Cleanup hands the gateway back to the config that follows this one (or,
// if this config's load failed, the one before), and releases its
// upstreams: one the remaining config still uses stays connected; one it
// no longer uses is closed once its calls in flight finish (its process
// ends). When no config uses the gateway any more, its client sessions
// end too.
func (h *Handler) Cleanup() error {
	h.detach()
	// h.frontend and h.gw stay set: after a reload, Caddy cleans up the old
	// config while its server still finishes requests it had taken, and
	// those requests are served by the shared frontend like any other.
	if h.frontend != nil && !h.released {
		h.released = true
		if _, err := frontends.Delete(h.name()); err != nil {
			h.logger.Error("releasing the gateway", zap.Error(err))
		}
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

func timeDuration(d caddy.Duration) time.Duration { return time.Duration(d) }
