package mcpgateway

import (
	"encoding/json"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// TestUnnamedPolicyNameAfterProvision: a JSON policy with matchers and no
// name is "policy<N>" in logs, also once provisioning has loaded its
// matchers (Caddy then clears MatcherSetsRaw), not "default", the name of
// the policy that takes every request.
func TestUnnamedPolicyNameAfterProvision(t *testing.T) {
	h := &Handler{
		Config: gateway.Config{Upstreams: []*gateway.UpstreamConfig{{Name: "up", Connection: gateway.Connection{URL: upstreamServer(t).URL}}}},
		Access: []*AccessPolicy{
			{MatcherSetsRaw: caddyhttp.RawMatcherSets{{"header": json.RawMessage(`{"X-Admin": ["1"]}`)}}, AccessRule: gateway.AccessRule{Allow: []string{"*"}}},
			{AccessRule: gateway.AccessRule{Allow: []string{"up.whoami"}}},
		},
	}
	serve(t, h)
	if got := h.policyName(0); got != "policy1" {
		t.Errorf("the policy with matchers is named %q in logs, want policy1", got)
	}
	if got := h.policyName(1); got != "default" {
		t.Errorf("the policy without matchers is named %q, want default", got)
	}
}

// TestAccessPoliciesThatCannotWork: a JSON config whose access policies
// cannot work as written is refused by validation, naming the policy: one
// after the policy without matchers (it never applies), one whose glob
// names a domain no upstream is (a typo that would hide the domain, or,
// in deny, hide nothing).
func TestAccessPoliciesThatCannotWork(t *testing.T) {
	upstreams := []*gateway.UpstreamConfig{{Name: "crm", Connection: gateway.Connection{URL: "https://crm.internal/mcp"}}}
	admins := caddyhttp.RawMatcherSets{{"header": json.RawMessage(`{"X-Role": ["admin"]}`)}}
	for _, tc := range []struct {
		name   string
		access []*AccessPolicy
		want   string // "" means valid
	}{
		{"matchers first", []*AccessPolicy{{MatcherSetsRaw: admins}, {AccessRule: gateway.AccessRule{Allow: []string{"crm.*"}}}}, ""},
		{"default first", []*AccessPolicy{{AccessRule: gateway.AccessRule{Allow: []string{"crm.*"}}}, {Name: "admins", MatcherSetsRaw: admins}},
			"access policy #2 (admins) never applies: policy #1 has no matcher and takes every request first"},
		{"two defaults", []*AccessPolicy{{}, {}}, "access policy #2 (default) never applies"},
		{"unknown domain in deny", []*AccessPolicy{{AccessRule: gateway.AccessRule{Deny: []string{"cmr.*_delete"}}}},
			`access policy #1 (default): deny "cmr.*_delete" names domain "cmr", which is none of this gateway's upstreams (crm)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &Handler{Config: gateway.Config{Upstreams: upstreams}, Access: tc.access}
			err := h.Validate()
			wantError(t, "", err, tc.want)
		})
	}
}
