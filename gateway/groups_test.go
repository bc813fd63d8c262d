package gateway

import (
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestInferGroups(t *testing.T) {
	for _, tc := range []struct {
		domain string
		names  []string
		want   []string
	}{
		{
			"memory",
			[]string{"create_entities", "create_relations", "add_observations", "delete_entities", "delete_observations", "delete_relations", "read_graph", "search_nodes", "open_nodes"},
			[]string{"entities", "relations", "observations", "entities", "observations", "relations", "general", "nodes", "nodes"},
		},
		{
			"apollo",
			[]string{"apollo_people_search", "apollo_people_enrich", "apollo_org_search", "apollo_org_enrich", "apollo_sequence_list"},
			[]string{"people", "people", "org", "org", "general"},
		},
		{
			"github",
			[]string{"getIssue", "listIssues", "createPullRequest", "mergePullRequest", "getMe"},
			[]string{"issue", "issue", "pull", "pull", "general"},
		},
		{"solo", []string{"do_the_thing"}, []string{"general"}},
	} {
		if got := inferGroups(tc.domain, tc.names); !slices.Equal(got, tc.want) {
			t.Errorf("inferGroups(%s, %v)\n got %v\nwant %v", tc.domain, tc.names, got, tc.want)
		}
	}
}

func TestGroupPrecedence(t *testing.T) {
	cfg := &UpstreamConfig{Name: "crm", Groups: []GroupRule{{Name: "admin", Tools: []string{"*_delete"}}}}
	defs := []*mcp.Tool{
		{Name: "people_delete", Meta: mcp.Meta{metaGroupsKey: []any{"crm", "people"}}},
		{Name: "people_find", Meta: mcp.Meta{metaGroupsKey: "people"}},
		{Name: "deal_find"},
		{Name: "deal_close"},
	}
	tools := make([]vettedTool, len(defs))
	for i, d := range defs {
		tools[i] = vettedTool{def: d, upstream: d.Name, local: d.Name}
	}
	got := assignGroups(cfg, tools)
	want := []string{"admin", "people", "deal", "deal"}
	if !slices.Equal(got, want) {
		t.Errorf("groups = %v, want %v (config, then _meta, then inferred)", got, want)
	}
}

func TestSummarize(t *testing.T) {
	for in, want := range map[string]string{
		"Search for people. Returns matching records.":              "Search for people.",
		"Read a file (e.g. notes.txt) from disk. Large files fail.": "Read a file (e.g. notes.txt) from disk.",
		"  Multi\n  line\tdescription  ":                            "Multi line description",
		"使用必应搜索指定的关键词。返回结果列表":                                       "使用必应搜索指定的关键词。",
		"": "",
		"A very long description without any sentence end that goes on and on about many things the tool can do for you": "A very long description without any sentence end that goes on and on about many things the tool can…",
	} {
		if got := summarize(in); got != want {
			t.Errorf("summarize(%q) = %q, want %q", in, got, want)
		}
	}
}
