package gateway

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHiddenPromptAndToolErrorsMatchMissingOnes: in passthrough
// mode, tools/call, prompts/get and completion/complete of a hidden item
// fail exactly as for an item that does not exist (code and message, the
// name taken out). Covers rule shapes the property tests do not: a
// pattern in the middle of a name, and case variants of a hidden name.
func TestHiddenPromptAndToolErrorsMatchMissingOnes(t *testing.T) {
	rule := AccessRule{Deny: []string{"crm.*_account", "crm.prompt:secret_*"}}
	tg := startGatewayWith(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("crm", serveHTTP(t, policyServer()).URL)}},
		Options{Access: []AccessRule{rule}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	same := func(what, hidden, missing string, do func(name string) error) {
		t.Helper()
		he, me := do(hidden), do(missing)
		if he == nil {
			t.Errorf("%s %s succeeded", what, hidden)
			return
		}
		if me == nil {
			t.Fatalf("%s %s succeeded", what, missing)
		}
		hc, hm := rpcError(t, he, hidden)
		mc, mm := rpcError(t, me, missing)
		if hc != mc || hm != mm {
			t.Errorf("%s: hidden %s reads (%d, %q), missing %s reads (%d, %q)", what, hidden, hc, hm, missing, mc, mm)
		}
	}
	for _, hidden := range []string{"crm_delete_account", "CRM_DELETE_ACCOUNT", "crm_Delete_Account"} {
		same("tools/call", hidden, "crm_nothing_here", func(name string) error {
			res, err := tg.client.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
			if err == nil && res.IsError {
				return errors.New(text(res))
			}
			return err
		})
	}
	same("prompts/get", "crm_secret_prompt", "crm_nothing_here", func(name string) error {
		_, err := tg.client.GetPrompt(ctx, &mcp.GetPromptParams{Name: name})
		return err
	})
	same("completion/complete", "crm_secret_prompt", "crm_nothing_here", func(name string) error {
		_, err := tg.client.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: name}, Argument: mcp.CompleteParamsArgument{Name: "a", Value: "b"}})
		return err
	})
	tools, err := tg.client.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(tools.Tools, func(tool *mcp.Tool) bool { return strings.Contains(strings.ToLower(tool.Name), "account") }) {
		t.Errorf("tools/list shows the hidden tool")
	}
}

// TestRulesMatchTheNamesOperatorsKnow: access rules written with the names an
// operator knows hide what they name: an upstream tool whose name is
// outside SEP-986 is renamed in the catalog, and a rule may name it by
// the upstream's own name; and a domain in any case (upstream names are
// unique ignoring case).
func TestRulesMatchTheNamesOperatorsKnow(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "crm"}, nil)
	addTextTool(s, "people_search", "Find people.", "found")
	addTextTool(s, "délete_account", "Remove a customer account for good.", "deleted")
	url := serveHTTP(t, s).URL
	for _, tc := range []struct {
		name string
		rule AccessRule
	}{
		{"deny by the upstream's own name", AccessRule{Deny: []string{"crm.délete_account"}}},
		{"deny by the upstream's own name, glob", AccessRule{Deny: []string{"crm.dé*"}}},
		{"deny by the domain in other case", AccessRule{Deny: []string{"CRM.*"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := startGatewayWith(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("crm", url)}}, Options{Access: []AccessRule{tc.rule}})
			res := tg.call(t, DiscoverToolsName, map[string]any{"query": "remove customer account"})
			if strings.Contains(text(res), "lete_account") {
				t.Errorf("rule %v: discover_tools shows the tool it names: %s", tc.rule, text(res))
			}
		})
	}
}

// TestAccessGlobsFoldOnlyTheDomain: an access glob names a domain in any
// case, while the rest of a name (a tool's) keeps its case.
func TestAccessGlobsFoldOnlyTheDomain(t *testing.T) {
	deny := AccessRule{Deny: []string{"CRM.*", "docs.Secret*"}}
	for name, want := range map[string]bool{"crm.delete": false, "crm2.delete": true, "docs.Secret_plan": false, "DOCS.Secret_plan": false, "docs.secret_plan": true} {
		if got := deny.Allows(name); got != want {
			t.Errorf("%v.Allows(%q) = %v, want %v", deny.Deny, name, got, want)
		}
	}
	allow := AccessRule{Allow: []string{"CRM.*"}}
	if !allow.allowsUnknownDomain("crm") || allow.allowsUnknownDomain("docs") {
		t.Error("an Allow glob in another case does not decide an unknown domain as it would a known one")
	}
	if (AccessRule{Deny: []string{"CRM.*"}}).allowsUnknownDomain("crm") {
		t.Error("a Deny glob in another case does not hide an unknown domain")
	}
}
