package gateway

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// policyServer is an upstream with a tool, a prompt, a resource and a
// template each, for a rule to hide.
func policyServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "crm"}, nil)
	addTextTool(s, "people_search", "Find people.", "found")
	addTextTool(s, "delete_account", "Delete an account.", "deleted")
	for _, p := range []string{"summary", "secret_prompt"} {
		s.AddPrompt(&mcp.Prompt{Name: p, Description: "Prompt " + p + "."}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "prompt"}}}}, nil
		})
	}
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "content"}}}, nil
	}
	s.AddResource(&mcp.Resource{URI: "crm://public/list", Name: "list"}, read)
	s.AddResource(&mcp.Resource{URI: "crm://secret/salaries", Name: "salaries"}, read)
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "crm://secret/{id}", Name: "secret record"}, read)
	return s
}

// TestSessionListsFollowEachRequestsPolicy: a client of an earlier
// revision whose session began under one access policy and whose later
// requests fall under another (a policy chosen per request, as Caddy's
// matchers do: by the network the request comes from, a header, a claim)
// is served each request by that request's own policy
// (TestEdgeServesEachRequestByItsOwnPolicy shows it for calls). Its
// listings must follow too: tools/list, prompts/list, resources/list and
// resources/templates/list under the stricter policy show nothing that
// policy hides.
func TestSessionListsFollowEachRequestsPolicy(t *testing.T) {
	strict := AccessRule{Deny: []string{"crm.delete_*", "crm.prompt:secret_*", "crm.resource:crm://secret/*", "crm.template:crm://secret/*"}}
	for _, mode := range []string{ModePassthrough, ModeHybrid} {
		t.Run(mode, func(t *testing.T) { sessionListsUnder(t, mode, strict) })
	}
}

func sessionListsUnder(t *testing.T, mode string, strict AccessRule) {
	cfg := Config{Mode: mode, Upstreams: []*UpstreamConfig{httpUpstream("crm", serveHTTP(t, policyServer()).URL)}}
	if mode == ModeHybrid {
		cfg.Pin = []string{"crm.delete_account", "crm.people_search"}
	}
	tg := startGatewayWith(t, cfg, Options{Access: []AccessRule{{}, strict}})
	cs, network := networkSwitchingSession(t, tg)
	network.Store("cafe") // alice's requests now fall under the strict policy
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	// The strict policy is applied to a call: the hidden tool is unknown.
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "crm_delete_account", Arguments: map[string]any{}}); err == nil && !res.IsError {
		t.Fatalf("a call under the strict policy ran its hidden tool: %v", res)
	}
	if mode != ModePassthrough {
		// Hybrid: the three meta-tools and the pinned tools; prompts and
		// resources are not exposed.
		if tools, err := cs.ListTools(ctx, nil); err == nil {
			for _, tool := range tools.Tools {
				if strings.Contains(tool.Name, "delete") {
					t.Errorf("requests under the strict policy list what it hides: tools/list: %s", tool.Name)
				}
			}
		}
		return
	}
	var seen []string
	if tools, err := cs.ListTools(ctx, nil); err == nil {
		kept := false
		for _, tool := range tools.Tools {
			if strings.Contains(tool.Name, "delete") {
				seen = append(seen, "tools/list: "+tool.Name)
			}
			kept = kept || tool.Name == "crm_people_search"
		}
		if !kept {
			t.Errorf("tools/list under the strict policy lost what it shows: %d tools", len(tools.Tools))
		}
	}
	if prompts, err := cs.ListPrompts(ctx, nil); err == nil {
		for _, p := range prompts.Prompts {
			if strings.Contains(p.Name, "secret") {
				seen = append(seen, "prompts/list: "+p.Name)
			}
		}
	}
	if res, err := cs.ListResources(ctx, nil); err == nil {
		for _, r := range res.Resources {
			if strings.Contains(r.URI, "secret") {
				seen = append(seen, "resources/list: "+r.URI)
			}
		}
	}
	if res, err := cs.ListResourceTemplates(ctx, nil); err == nil {
		for _, r := range res.ResourceTemplates {
			if strings.Contains(r.URITemplate, "secret") {
				seen = append(seen, "resources/templates/list: "+r.URITemplate)
			}
		}
	}
	if len(seen) > 0 {
		t.Errorf("requests under the strict policy list what it hides:\n %s", strings.Join(seen, "\n "))
	}
}

// networkSwitchingSession serves tg through an edge that puts a request
// from the office network (header X-Network: office) under policy 0 and
// any other under policy 1, all of them alice's, and connects a
// 2025-11-25 client from the office; storing another network in the
// returned value moves its later requests to policy 1.
func networkSwitchingSession(t *testing.T, tg *testGateway) (*mcp.ClientSession, *atomic.Value) {
	t.Helper()
	network := new(atomic.Value)
	network.Store("office")
	ts := serveEdge(t, tg, EdgeOptions{Identify: func(r *http.Request) (Caller, error) {
		policy := 0
		if r.Header.Get("X-Network") != "office" {
			policy = 1
		}
		return Caller{Policy: policy, User: "alice"}, nil
	}})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "old"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &http.Client{Transport: dynamicHeader{name: "X-Network", value: network}}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, network
}

// dynamicHeader sets one header, to a value that may change between
// requests, on every request.
type dynamicHeader struct {
	name  string
	value *atomic.Value
}

func (d dynamicHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(d.name, d.value.Load().(string))
	return http.DefaultTransport.RoundTrip(r)
}

// TestListUnderAnotherPolicyComesWhole: a client of an earlier revision
// whose session began under a broad policy and whose requests now fall
// under a stricter one gets its lists filtered by the stricter policy
// (TestSessionListsFollowEachRequestsPolicy), and whole: a page of the
// session's view would end on that view's item, and the SDK's cursor
// spells that item's name (base64 of a gob), which may be one the strict
// policy hides.
func TestListUnderAnotherPolicyComesWhole(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "crm"}, nil)
	// 1001 tools: the SDK's pages hold 1000, so the first page ends on
	// the 1000th name in order, t0999 (crm_t0999 once exposed).
	for i := range 1001 {
		name := fmt.Sprintf("t%04d", i)
		if i == 999 {
			name = "t0999_payroll_export"
		}
		addTextTool(s, name, "Tool "+name+".", "ok")
	}
	cfg := Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("crm", serveHTTP(t, s).URL)}}
	strict := AccessRule{Deny: []string{"crm.t0999_payroll_export"}}
	tg := startGatewayWith(t, cfg, Options{Access: []AccessRule{{}, strict}})
	cs, network := networkSwitchingSession(t, tg)
	network.Store("cafe") // alice's requests now fall under the strict policy
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if strings.Contains(tool.Name, "payroll") {
			t.Fatalf("tools/list under the strict policy lists %s", tool.Name)
		}
	}
	if decoded, _ := base64.URLEncoding.DecodeString(res.NextCursor); strings.Contains(string(decoded), "payroll") {
		t.Errorf("tools/list under the strict policy hands out a nextCursor naming the tool it hides: cursor %q decodes to %q", res.NextCursor, decoded)
	}
	if len(res.Tools) != 1000 || res.NextCursor != "" {
		t.Errorf("tools/list under the strict policy = %d tools and cursor %q, want the 1000 it exposes in one answer", len(res.Tools), res.NextCursor)
	}
	// Under the session's own policy, lists come in the SDK's pages.
	network.Store("office")
	if res, err = cs.ListTools(ctx, nil); err != nil || res.NextCursor == "" {
		t.Errorf("tools/list under the session's own policy = cursor %q (%v), want a page and a cursor", res.NextCursor, err)
	}
}
