package mcpgateway

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// AccessPolicy picks, by Caddy request matchers, the tools a request may
// see and call. Policies are tried in order and the first that matches
// wins; a policy without matchers matches every request (a default).
// Matchers can test anything Caddy knows of a request: headers, client IP,
// an `expression` over {http.auth.user.*} set by basic_auth, forward_auth
// or a JWT plugin, and so on.
type AccessPolicy struct {
	MatcherSetsRaw caddyhttp.RawMatcherSets `json:"match,omitempty" caddy:"namespace=http.matchers"`
	gateway.AccessRule

	matchers caddyhttp.MatcherSets
}

// policyKey carries the index of a request's access policy to getServer.
type policyKey struct{}

// provisionAccess loads the policies' matchers.
func (h *Handler) provisionAccess(ctx caddy.Context) error {
	for i, p := range h.Access {
		if p == nil {
			return fmt.Errorf("access policy #%d is empty", i+1)
		}
		if len(p.MatcherSetsRaw) == 0 {
			continue
		}
		mods, err := ctx.LoadModule(p, "MatcherSetsRaw")
		if err != nil {
			return fmt.Errorf("access policy #%d: loading matchers: %v", i+1, err)
		}
		if err := p.matchers.FromInterface(mods); err != nil {
			return fmt.Errorf("access policy #%d: %v", i+1, err)
		}
	}
	return nil
}

// accessRules are the gateway's rules, one per policy.
func (h *Handler) accessRules() []gateway.AccessRule {
	rules := make([]gateway.AccessRule, len(h.Access))
	for i, p := range h.Access {
		rules[i] = p.AccessRule
	}
	return rules
}

// errNoPolicy answers a request no access policy matches.
var errNoPolicy = errors.New("no access policy of this MCP gateway matches the request")

// policyFor returns the index of the first access policy matching r.
func (h *Handler) policyFor(r *http.Request) (int, error) {
	if len(h.Access) == 0 {
		return 0, nil
	}
	for i, p := range h.Access {
		if len(p.matchers) == 0 {
			return i, nil
		}
		ok, err := p.matchers.AnyMatchWithError(r)
		if err != nil {
			return 0, err
		}
		if ok {
			return i, nil
		}
	}
	return 0, errNoPolicy
}

// identity tells callers apart for session binding: the access policy and
// the authenticated user, if any.
func identity(r *http.Request, policy int) string {
	user := ""
	if repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok {
		user = repl.ReplaceAll("{http.auth.user.id}", "")
	}
	return fmt.Sprintf("%d/%s", policy, user)
}

func withPolicy(r *http.Request, policy int) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), policyKey{}, policy))
}

func policyOf(r *http.Request) int {
	i, _ := r.Context().Value(policyKey{}).(int)
	return i
}

// hostAllowed reports whether r's Host is one of the allowed hosts
// (exact, or "*.example.com" for its subdomains), ignoring the port.
func hostAllowed(r *http.Request, allowed []string) bool {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, a := range allowed {
		a = strings.ToLower(a)
		if host == a || (strings.HasPrefix(a, "*.") && strings.HasSuffix(host, a[1:])) {
			return true
		}
	}
	return false
}
