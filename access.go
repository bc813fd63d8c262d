package mcpgateway

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// AccessPolicy picks, by Caddy request matchers, the tools a request may
// see and call. Policies are tried in order and the first that matches
// wins; a policy without matchers matches every request (a default).
// Matchers can test anything Caddy knows of a request: headers, client IP,
// an `expression` over {http.auth.user.*} set by basic_auth, forward_auth
// or a JWT plugin, and so on.
type AccessPolicy struct {
	// Name tells the policy apart in logs (the Caddyfile uses the
	// matcher's name, without its @). Default: "default" for a policy
	// without matchers, else "policy<N>" by its place.
	Name           string                   `json:"name,omitempty"`
	MatcherSetsRaw caddyhttp.RawMatcherSets `json:"match,omitempty" caddy:"namespace=http.matchers"`
	gateway.AccessRule

	matchers caddyhttp.MatcherSets
}

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

// hasMatchers reports whether the policy has request matchers, before
// provisioning (MatcherSetsRaw) or after it, when Caddy has loaded them
// into matchers and cleared MatcherSetsRaw.
func (p *AccessPolicy) hasMatchers() bool {
	return len(p.MatcherSetsRaw) > 0 || len(p.matchers) > 0
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

// DefaultIdentity is the placeholder Identity defaults to: the user
// Caddy's authentication modules (basic_auth, ...) set.
const DefaultIdentity = "{http.auth.user.id}"

// identify decides a request's caller: its access policy (errNoPolicy,
// forbidden, when none matches), its user by the Identity placeholder, and
// the header values its upstream calls carry. When policies are configured
// and a request has no user, sessions are bound by the policy alone: that
// is said once in the log, since users under one policy could then use
// each other's sessions.
func (h *Handler) identify(r *http.Request) (gateway.Caller, error) {
	policy, err := h.policyFor(r)
	if err != nil {
		if errors.Is(err, errNoPolicy) {
			return gateway.Caller{}, fmt.Errorf("%w: %v", gateway.ErrForbidden, err)
		}
		return gateway.Caller{}, err
	}
	repl, _ := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	if repl == nil {
		repl = caddy.NewReplacer()
	}
	placeholder := h.Identity
	if placeholder == "" {
		placeholder = DefaultIdentity
	}
	user := repl.ReplaceAll(placeholder, "")
	if user == "" && len(h.Access) > 0 {
		h.noIdentityOnce.Do(func() {
			h.logger.Warn("a request has no identity ("+placeholder+" is empty): its session is bound by its access policy alone, "+
				"so callers under one policy could use each other's sessions; set `identity` to what tells your users apart",
				zap.String("policy", h.policyName(policy)))
		})
	}
	return gateway.Caller{Policy: policy, PolicyName: h.policyName(policy), User: user, UpstreamHeaders: h.requestHeaders(repl)}, nil
}

// policyName names access policy i in logs.
func (h *Handler) policyName(i int) string {
	if i < 0 || i >= len(h.Access) {
		return "default"
	}
	p := h.Access[i]
	switch {
	case p.Name != "":
		return p.Name
	case !p.hasMatchers():
		return "default"
	}
	return fmt.Sprintf("policy%d", i+1)
}

// checkAccess reports the first policy that cannot work as written, with
// its index: one after a policy without matchers, which takes every
// request first, so that it never applies; or one with a glob that names
// a domain none of the upstreams is, or that can match nothing (see
// gateway.CheckAccessDomains).
func (h *Handler) checkAccess() (int, error) {
	domains := make([]string, 0, len(h.Upstreams))
	for _, u := range h.Upstreams {
		if u != nil {
			domains = append(domains, u.Name)
		}
	}
	catchAll := -1
	for i, p := range h.Access {
		if p == nil {
			continue
		}
		if catchAll >= 0 {
			return i, fmt.Errorf("access policy #%d (%s) never applies: policy #%d has no matcher and takes every request first; put the policy without a matcher last", i+1, h.policyName(i), catchAll+1)
		}
		if !p.hasMatchers() {
			catchAll = i
		}
		if err := gateway.CheckAccessDomains(p.AccessRule, domains); err != nil {
			return i, fmt.Errorf("access policy #%d (%s): %v", i+1, h.policyName(i), err)
		}
	}
	return 0, nil
}
