package gateway

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// crmAndDocs starts a gateway over two upstreams: a CRM whose tools declare
// groups in _meta, and a docs server whose groups come from config.
func crmAndDocs(t *testing.T) *testGateway {
	crm := mcp.NewServer(&mcp.Implementation{Name: "crm"}, nil)
	for _, tool := range []struct{ name, desc, group string }{
		{"people_search", "Search for people by name, title, company, or other criteria.", "people"},
		{"people_enrich", "Enrich a person record with full contact and company data.", "people"},
		{"org_search", "Search for organizations by name, industry, or size.", "organizations"},
		{"search", "Search every CRM record.", "misc"},
	} {
		s := tool
		crm.AddTool(&mcp.Tool{
			Name: s.name, Description: s.desc,
			InputSchema: map[string]any{"type": "object"},
			Meta:        mcp.Meta{metaGroupsKey: []any{"crm", s.group}},
		}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "crm:" + s.name}}}, nil
		})
	}
	docs := mcp.NewServer(&mcp.Implementation{Name: "docs"}, nil)
	addTextTool(docs, "search", "Full-text search over the documentation pages.", "docs:search")
	addTextTool(docs, "read_page", "Read one documentation page by its path.", "docs:read_page")
	addTextTool(docs, "delete_page", "Delete a documentation page.", "docs:delete_page")

	crmUp := httpUpstream("crm", serveHTTP(t, crm).URL)
	crmUp.Description = "CRM: people, companies and deals"
	docsUp := httpUpstream("docs", serveHTTP(t, docs).URL)
	docsUp.Groups = []GroupRule{{Name: "pages", Tools: []string{"*_page"}}}
	docsUp.Deny = []string{"delete_*"}
	return startGateway(t, Config{Upstreams: []*UpstreamConfig{crmUp, docsUp}})
}

func TestDiscoverDomains(t *testing.T) {
	tg := crmAndDocs(t)
	got := callJSON[domainsResponse](t, tg, DiscoverToolsName, map[string]any{})
	if got.TotalTools != 6 {
		t.Errorf("total_tools = %d, want 6 (4 crm + 2 docs; delete_page is denied)", got.TotalTools)
	}
	if len(got.Domains) != 2 || got.Domains[0].Name != "crm" || got.Domains[1].Name != "docs" {
		t.Fatalf("domains = %+v, want crm then docs", got.Domains)
	}
	crm := got.Domains[0]
	if crm.Description != "CRM: people, companies and deals" || crm.ToolCount != 4 || crm.Status != "" {
		t.Errorf("crm = %+v", crm)
	}
	// The go-sdk lists tools by name; groups follow the tools' order.
	if !slices.Equal(crm.Groups, []string{"organizations", "people", "misc"}) {
		t.Errorf("crm groups = %v, want the _meta groups in order of appearance", crm.Groups)
	}
	if !slices.Contains(got.Domains[1].Groups, "pages") {
		t.Errorf("docs groups = %v, want the configured group 'pages'", got.Domains[1].Groups)
	}
}

func TestDiscoverDomainAndGroup(t *testing.T) {
	tg := crmAndDocs(t)
	dom := callJSON[domainResponse](t, tg, DiscoverToolsName, map[string]any{"domain": "crm"})
	var names []string
	for _, tool := range dom.Tools {
		names = append(names, tool.Name)
		if tool.Group == "" || tool.Description == "" {
			t.Errorf("tool %+v lacks group or description", tool)
		}
	}
	if !slices.Equal(names, []string{"crm.org_search", "crm.people_enrich", "crm.people_search", "crm.search"}) {
		t.Errorf("crm tools = %v", names)
	}

	grp := callJSON[domainResponse](t, tg, DiscoverToolsName, map[string]any{"domain": "CRM", "group": "People"})
	if grp.Domain != "crm" || grp.Group != "people" || len(grp.Tools) != 2 {
		t.Fatalf("crm/people = %+v", grp)
	}
	if grp.Tools[0].Group != "" {
		t.Errorf("tools in a group view repeat their group: %+v", grp.Tools[0])
	}

	docs := callJSON[domainResponse](t, tg, DiscoverToolsName, map[string]any{"domain": "docs", "group": "pages"})
	if len(docs.Tools) != 1 || docs.Tools[0].Name != "docs.read_page" {
		t.Errorf("docs/pages = %+v, want only read_page (delete_page is denied)", docs.Tools)
	}
}

func TestDiscoverSearchRanksAndNeverPads(t *testing.T) {
	tg := crmAndDocs(t)
	res := callJSON[searchResponse](t, tg, DiscoverToolsName, map[string]any{"query": "organizations industry"})
	if len(res.Results) == 0 || res.Results[0].Name != "crm.org_search" {
		t.Fatalf("search 'organizations industry' = %+v, want crm.org_search first", res.Results)
	}
	if res.Results[0].Domain != "crm" || res.Total != len(res.Results) {
		t.Errorf("result = %+v, total %d", res.Results[0], res.Total)
	}

	scoped := callJSON[searchResponse](t, tg, DiscoverToolsName, map[string]any{"query": "search", "domain": "docs"})
	for _, r := range scoped.Results {
		if r.Domain != "docs" {
			t.Errorf("search scoped to docs returned %+v", r)
		}
	}
	if len(scoped.Results) == 0 {
		t.Error("search 'search' in docs found nothing")
	}

	none := callJSON[searchResponse](t, tg, DiscoverToolsName, map[string]any{"query": "kubernetes"})
	if len(none.Results) != 0 || none.Total != 0 {
		t.Errorf("a query matching nothing returned %+v", none.Results)
	}
	if !strings.Contains(none.Note, "No tools match") || !strings.Contains(none.Note, "crm, docs") {
		t.Errorf("no-match note = %q, want it to say so and list the domains", none.Note)
	}

	denied := callJSON[searchResponse](t, tg, DiscoverToolsName, map[string]any{"query": "delete"})
	for _, r := range denied.Results {
		if r.Name == "docs.delete_page" {
			t.Error("a denied tool is found by search")
		}
	}
}

func TestDiscoverErrors(t *testing.T) {
	tg := crmAndDocs(t)
	msg := callError(t, tg, DiscoverToolsName, map[string]any{"domain": "crn"}, ErrUnknownDomain)
	if !strings.Contains(msg, "Unknown domain 'crn'") || !strings.Contains(msg, "Did you mean 'crm'") || !strings.Contains(msg, "Available domains: crm, docs") {
		t.Errorf("unknown domain error = %q", msg)
	}
	msg = callError(t, tg, DiscoverToolsName, map[string]any{"domain": "crm", "group": "deals"}, ErrUnknownGroup)
	if !strings.Contains(msg, "Available groups: organizations, people, misc") {
		t.Errorf("unknown group error = %q", msg)
	}
	msg = callError(t, tg, DiscoverToolsName, map[string]any{"group": "people"}, ErrInvalidArguments)
	if !strings.Contains(msg, "requires 'domain'") || !strings.Contains(msg, "in: crm") {
		t.Errorf("group without domain error = %q", msg)
	}
	msg = callError(t, tg, DiscoverToolsName, map[string]any{"domain": 7}, ErrInvalidArguments)
	if !strings.Contains(msg, "'domain' must be a string, got a number") {
		t.Errorf("wrong type error = %q", msg)
	}
	msg = callError(t, tg, DiscoverToolsName, map[string]any{"search": "x"}, ErrInvalidArguments)
	if !strings.Contains(msg, "no argument 'search'") || !strings.Contains(msg, "domain, group, query") {
		t.Errorf("unknown argument error = %q", msg)
	}
	msg = callError(t, tg, DiscoverToolsName, map[string]any{"query": strings.Repeat("x", maxQueryLen+1)}, ErrInvalidArguments)
	if !strings.Contains(msg, "limit") {
		t.Errorf("long query error = %q", msg)
	}
}

func TestMetaToolsListedWithAnnotationsAndInstructions(t *testing.T) {
	tg := crmAndDocs(t)
	res, err := tg.client.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Annotations == nil {
			t.Errorf("%s has no annotations", tool.Name)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{DiscoverToolsName, ExecuteToolName, GetToolSchemaName}) {
		t.Fatalf("tools = %v, want exactly the three meta-tools", names)
	}
	for _, tool := range res.Tools {
		a := tool.Annotations
		readOnly := tool.Name != ExecuteToolName
		if a.ReadOnlyHint != readOnly || a.IdempotentHint != readOnly || a.OpenWorldHint == nil || *a.OpenWorldHint == readOnly {
			t.Errorf("%s annotations = %+v", tool.Name, a)
		}
	}
	instr := tg.client.InitializeResult().Instructions
	if !strings.Contains(instr, "discover_tools → get_tool_schema → execute_tool") || !strings.Contains(instr, "crm (CRM: people, companies and deals), docs") {
		t.Errorf("instructions = %q", instr)
	}
}

func TestDescriptionOverride(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "crm"}, nil)
	addTextTool(s, "people_search", "Searches.", "ok")
	up := httpUpstream("crm", serveHTTP(t, s).URL)
	up.Tools = map[string]ToolOverride{"people_search": {Description: "Find contacts by employer or job title."}}
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{up}})

	dom := callJSON[domainResponse](t, tg, DiscoverToolsName, map[string]any{"domain": "crm"})
	if dom.Tools[0].Description != "Find contacts by employer or job title." {
		t.Errorf("listed description = %q, want the override", dom.Tools[0].Description)
	}
	schema := callJSON[toolSchemaResponse](t, tg, GetToolSchemaName, map[string]any{"tool_name": "crm.people_search"})
	if schema.Description != "Find contacts by employer or job title." {
		t.Errorf("schema description = %q, want the override", schema.Description)
	}
	res := callJSON[searchResponse](t, tg, DiscoverToolsName, map[string]any{"query": "employer"})
	if len(res.Results) != 1 {
		t.Errorf("search for a word only the override has = %+v", res.Results)
	}
}

func TestDomainListIsBounded(t *testing.T) {
	few := &Catalog{Domains: []*Domain{{Name: "crm"}, {Name: "docs"}}}
	if got := domainList(few); got != "crm, docs" {
		t.Errorf("domainList of two domains = %q", got)
	}
	many := &Catalog{}
	for i := range maxListedDomains + 5 {
		many.Domains = append(many.Domains, &Domain{Name: fmt.Sprintf("d%02d", i)})
	}
	got := domainList(many)
	if !strings.HasPrefix(got, "d00, d01, ") || !strings.Contains(got, "d19 and 5 more (discover_tools() lists them all)") || strings.Contains(got, "d20") {
		t.Errorf("domainList of %d domains = %q", len(many.Domains), got)
	}
}
