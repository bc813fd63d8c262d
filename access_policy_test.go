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
