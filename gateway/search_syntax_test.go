package gateway

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestSearchSyntax(t *testing.T) {
	tg := crmAndDocs(t)

	sel := callJSON[searchResponse](t, tg, DiscoverToolsName, map[string]any{"query": "select:docs.read_page,crm_people_search,crm.nope"})
	if len(sel.Results) != 2 || sel.Results[0].Name != "docs.read_page" || sel.Results[1].Name != "crm.people_search" {
		t.Errorf("select = %+v, want the two known tools in the order named", sel.Results)
	}
	if !strings.Contains(sel.Note, "Unknown tool 'crm.nope'") {
		t.Errorf("select note = %q, want the unknown name reported", sel.Note)
	}

	re := callJSON[searchResponse](t, tg, DiscoverToolsName, map[string]any{"query": "/^crm\\.(people|org)_/"})
	if re.Total != 3 || len(re.Results) != 3 {
		t.Errorf("regex = %+v, want crm's three people/org tools", re.Results)
	}
	byDesc := callJSON[searchResponse](t, tg, DiscoverToolsName, map[string]any{"query": "/industry/"})
	if byDesc.Total != 1 || byDesc.Results[0].Name != "crm.org_search" {
		t.Errorf("regex over descriptions = %+v", byDesc.Results)
	}
	msg := callError(t, tg, DiscoverToolsName, map[string]any{"query": "/(unclosed/"}, ErrInvalidArguments)
	if !strings.Contains(msg, "bad regex") {
		t.Errorf("bad regex error = %q", msg)
	}

	req := callJSON[searchResponse](t, tg, DiscoverToolsName, map[string]any{"query": "search +organizations"})
	if req.Total != 1 || req.Results[0].Name != "crm.org_search" {
		t.Errorf("+organizations search = %+v", req.Results)
	}

	scoped := callJSON[searchResponse](t, tg, DiscoverToolsName, map[string]any{"query": "search domain:docs"})
	if scoped.Domain != "docs" || len(scoped.Results) == 0 {
		t.Errorf("domain: in the query = %+v", scoped)
	}
	for _, r := range scoped.Results {
		if r.Domain != "docs" {
			t.Errorf("domain:docs returned %+v", r)
		}
	}
	msg = callError(t, tg, DiscoverToolsName, map[string]any{"query": "search domain:docs", "domain": "crm"}, ErrInvalidArguments)
	if !strings.Contains(msg, "give it once") {
		t.Errorf("conflicting domains error = %q", msg)
	}
}

func TestSearchPaging(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "big"}, nil)
	for i := range 23 {
		addTextTool(s, fmt.Sprintf("report_%02d", i), "Make a report.", "ok")
	}
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("big", serveHTTP(t, s).URL)}})

	first := callJSON[searchResponse](t, tg, DiscoverToolsName, map[string]any{"query": "report limit:10"})
	if first.Total != 23 || len(first.Results) != 10 || first.Next != "report limit:10 page:2" {
		t.Fatalf("page 1: total %d, %d results, next %q", first.Total, len(first.Results), first.Next)
	}
	seen := map[string]bool{}
	next := first.Next
	for _, r := range first.Results {
		seen[r.Name] = true
	}
	for next != "" {
		page := callJSON[searchResponse](t, tg, DiscoverToolsName, map[string]any{"query": next})
		for _, r := range page.Results {
			if seen[r.Name] {
				t.Errorf("%s is on two pages", r.Name)
			}
			seen[r.Name] = true
		}
		next = page.Next
	}
	if len(seen) != 23 {
		t.Errorf("paging through saw %d tools, want 23", len(seen))
	}

	list := callJSON[domainResponse](t, tg, DiscoverToolsName, map[string]any{"domain": "big", "query": "limit:20"})
	if len(list.Tools) != 20 || list.Total != 23 || list.Next != "page:2" {
		t.Errorf("paged listing = %d tools, total %d, next %q", len(list.Tools), list.Total, list.Next)
	}
	rest := callJSON[domainResponse](t, tg, DiscoverToolsName, map[string]any{"domain": "big", "query": "limit:20 page:2"})
	if len(rest.Tools) != 3 || rest.Next != "" {
		t.Errorf("second listing page = %d tools, next %q", len(rest.Tools), rest.Next)
	}
}

func TestGetToolSchemaBatch(t *testing.T) {
	tg := crmAndDocs(t)
	batch := callJSON[schemasResponse](t, tg, GetToolSchemaName, map[string]any{"tool_name": "crm.people_search, docs.read_page, crm.peple_search_x"})
	if len(batch.Schemas) != 2 || batch.Schemas[0].Name != "crm.people_search" || batch.Schemas[1].Name != "docs.read_page" {
		t.Errorf("batch = %+v", batch.Schemas)
	}
	if len(batch.NotFound) != 1 || !strings.Contains(batch.NotFound[0], "Did you mean 'crm.people_search'") {
		t.Errorf("not_found = %v", batch.NotFound)
	}
	list := callJSON[schemasResponse](t, tg, GetToolSchemaName, map[string]any{"tool_name": []string{"crm.org_search", "docs.search"}})
	if len(list.Schemas) != 2 {
		t.Errorf("a list of names = %+v", list)
	}
	// One name still answers with the schema itself.
	one := callJSON[toolSchemaResponse](t, tg, GetToolSchemaName, map[string]any{"tool_name": "crm.org_search"})
	if one.Name != "crm.org_search" {
		t.Errorf("single = %+v", one)
	}
	callError(t, tg, GetToolSchemaName, map[string]any{"tool_name": "nope.a, nope.b"}, ErrUnknownTool)
	callError(t, tg, GetToolSchemaName, map[string]any{"tool_name": 3}, ErrInvalidArguments)
}
