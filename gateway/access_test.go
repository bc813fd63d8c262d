package gateway

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// accessFixture starts a gateway over crm, docs and secret with two access
// rules: an analyst (crm and docs, no deletes) and an admin (everything).
// tg.client is the analyst's.
func accessFixture(t *testing.T, mode string) (*testGateway, *mcp.ClientSession) {
	crm := mcp.NewServer(&mcp.Implementation{Name: "crm"}, nil)
	addTextTool(crm, "people_search", "Search people by name.", "people")
	addTextTool(crm, "people_delete", "Delete a person for good.", "deleted")
	docs := mcp.NewServer(&mcp.Implementation{Name: "docs"}, nil)
	addTextTool(docs, "search", "Search the documentation.", "pages")
	addTextTool(docs, "delete_page", "Delete a documentation page.", "deleted")
	secret := mcp.NewServer(&mcp.Implementation{Name: "secret"}, nil)
	addTextTool(secret, "launch_rockets", "Launch the rockets.", "launched")
	cfg := Config{Mode: mode, Upstreams: []*UpstreamConfig{
		httpUpstream("crm", serveHTTP(t, crm).URL),
		httpUpstream("docs", serveHTTP(t, docs).URL),
		httpUpstream("secret", serveHTTP(t, secret).URL),
	}}
	tg := startGatewayWith(t, cfg, Options{Access: []AccessRule{
		{Allow: []string{"crm.*", "docs.*"}, Deny: []string{"*delete*"}},
		{},
	}})
	ct, st := mcp.NewInMemoryTransports()
	if _, err := tg.ServerFor(1).Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	admin, err := mcp.NewClient(&mcp.Implementation{Name: "admin"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	return tg, admin
}

func TestAccessHidesToolsEverywhere(t *testing.T) {
	tg, admin := accessFixture(t, ModeMeta)

	domains := callJSON[domainsResponse](t, tg, DiscoverToolsName, nil)
	var names []string
	for _, d := range domains.Domains {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, []string{"crm", "docs"}) || domains.TotalTools != 2 {
		t.Errorf("analyst sees domains %v and %d tools, want crm, docs and 2 tools", names, domains.TotalTools)
	}
	instr := tg.client.InitializeResult().Instructions
	if strings.Contains(instr, "secret") || !strings.Contains(instr, "crm") {
		t.Errorf("analyst's instructions: %q", instr)
	}

	// Every way of asking for a hidden tool reads like asking for one that
	// does not exist, and no suggestion names it.
	unknownLike := func(msg, asked string) {
		t.Helper()
		rest := strings.ReplaceAll(msg, asked, "")
		if strings.Contains(rest, "delete") || strings.Contains(rest, "secret") || strings.Contains(rest, "launch") {
			t.Errorf("the error for %q reveals a hidden tool: %q", asked, msg)
		}
	}
	for _, name := range []string{"crm.people_delete", "crm_people_delete", "people_delete", "crm.people_delet", "delete_page", "secret.launch_rockets", "launch_rockets"} {
		msg := callError(t, tg, ExecuteToolName, map[string]any{"tool_name": name}, ErrUnknownTool)
		if !strings.HasPrefix(msg, "Unknown tool '"+name+"'.") {
			t.Errorf("execute %s: %q", name, msg)
		}
		unknownLike(msg, name)
		msg = callError(t, tg, GetToolSchemaName, map[string]any{"tool_name": name}, ErrUnknownTool)
		unknownLike(msg, name)
	}
	// A hidden tool and a missing one named alike get the same answer.
	hidden := callError(t, tg, ExecuteToolName, map[string]any{"tool_name": "docs.delete_page"}, ErrUnknownTool)
	missing := callError(t, tg, ExecuteToolName, map[string]any{"tool_name": "docs.delete_pages"}, ErrUnknownTool)
	if strings.Replace(hidden, "docs.delete_page", "X", 1) != strings.Replace(missing, "docs.delete_pages", "X", 1) {
		t.Errorf("a hidden tool's error differs from a missing one's:\n%q\n%q", hidden, missing)
	}
	msg := callError(t, tg, DiscoverToolsName, map[string]any{"domain": "secret"}, ErrUnknownDomain)
	if strings.Contains(msg, "Did you mean 'secret'") || strings.Contains(msg, "secret,") || strings.HasSuffix(msg, "secret") {
		t.Errorf("unknown-domain error lists the hidden domain: %q", msg)
	}

	for _, query := range []string{"delete", "launch rockets", "/delete/", "/.*/", "select:crm.people_delete,docs.delete_page", "+delete person"} {
		res := callJSON[searchResponse](t, tg, DiscoverToolsName, map[string]any{"query": query})
		echoed := strings.TrimPrefix(strings.TrimPrefix(query, "select:"), "+")
		res.Query = ""
		res.Note = strings.NewReplacer(echoed, "", "crm.people_delete", "", "docs.delete_page", "").Replace(res.Note)
		b, _ := json.Marshal(res)
		if strings.Contains(string(b), "delete") || strings.Contains(string(b), "launch") || strings.Contains(string(b), "secret") {
			t.Errorf("query %q shows a hidden tool: %s", query, b)
		}
		if res.Total != len(res.Results) || res.Total > 2 {
			t.Errorf("query %q counts %d tools", query, res.Total)
		}
	}
	// The admin sees and can call everything.
	res, err := admin.CallTool(context.Background(), &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "secret.launch_rockets"}})
	if err != nil || text(res) != "launched" {
		t.Errorf("admin's call = %v %v", text(res), err)
	}
}

func TestAccessInPassthrough(t *testing.T) {
	tg, admin := accessFixture(t, ModePassthrough)
	if got := toolNames(t, tg.client); !slices.Equal(got, []string{"crm_people_search", "docs_search"}) {
		t.Errorf("analyst's passthrough tools = %v", got)
	}
	if _, err := tg.client.CallTool(context.Background(), &mcp.CallToolParams{Name: "crm_people_delete"}); err == nil {
		t.Error("the analyst called a hidden passthrough tool")
	}
	if got := toolNames(t, admin); len(got) != 5 {
		t.Errorf("admin's passthrough tools = %v", got)
	}
}

func TestAccessRuleMatching(t *testing.T) {
	r := AccessRule{Allow: []string{"crm.*", "docs.search"}, Deny: []string{"*_delete"}}
	for name, want := range map[string]bool{"crm.people_search": true, "crm.people_delete": false, "docs.search": true, "docs.read": false, "x.y": false} {
		if r.Allows(name) != want {
			t.Errorf("Allows(%s) = %v", name, !want)
		}
	}
	for domain, want := range map[string]bool{"crm": true, "docs": true, "secret": false} {
		if r.allowsUnknownDomain(domain) != want {
			t.Errorf("allowsUnknownDomain(%s) = %v", domain, !want)
		}
	}
	for glob, hides := range map[string]bool{"*": true, "docs*": true, "do*": true, "docs.*": true, "docs.x*": false, "*s": false, "d?cs.*": false, "crm*": false} {
		if (AccessRule{Deny: []string{glob}}).allowsUnknownDomain("docs") == hides {
			t.Errorf("deny %s: hides docs = %v, want %v", glob, !hides, hides)
		}
	}
	if !(AccessRule{}).allowsAll() || !(AccessRule{Allow: []string{"*"}}).allowsAll() || r.allowsAll() {
		t.Error("allowsAll")
	}
}
