package search

import (
	"strings"
	"testing"
)

// Words most domains describe themselves with ("an MCP server") do not
// drown a tool named for them.
func TestSearchLeavesOutBoilerplateOfDomainDescriptions(t *testing.T) {
	var docs []Document
	for _, d := range []struct{ domain, description string }{
		{"slides", "An MCP server for PowerPoint presentations."},
		{"weather", "An MCP server for weather forecasts."},
		{"notes", "An MCP server that keeps notes."},
		{"maps", "An MCP server for maps and places."},
		{"files", "Files on disk."},
	} {
		for _, tool := range []string{"get_status", "list_items"} {
			docs = append(docs, Document{Name: tool, Description: "Report on the " + d.domain + " of PowerPoint.", Domain: d.domain, DomainDescription: d.description})
		}
	}
	docs = append(docs, Document{Name: "get_server_info", Description: "Get what it can do.", Domain: "slides", DomainDescription: "An MCP server for PowerPoint presentations."})
	ix := NewIndex(docs)
	hits, total := ix.Search(Request{Text: "PowerPoint server", Limit: 3})
	if len(hits) == 0 || docs[hits[0].Doc].Name != "get_server_info" {
		t.Errorf("PowerPoint server: %v, want get_server_info first", hits)
	}
	// "server" is no word of the other tools: only their domain's
	// "PowerPoint" matches them.
	if _, total = ix.Search(Request{Text: "server", Limit: 3}); total != 1 {
		t.Errorf("server matches %d tools, want get_server_info alone", total)
	}
	// The words stay in the descriptions of fewer than four domains.
	few := NewIndex(docs[:4])
	if _, total := few.Search(Request{Text: "mcp server", Limit: 1}); total != 4 {
		t.Errorf("with two domains, mcp server matches %d tools, want 4", total)
	}
}

func TestDropBoilerplate(t *testing.T) {
	docs := []Document{
		{DomainDescription: "a"}, {DomainDescription: "b"}, {DomainDescription: "c"}, {DomainDescription: "c"}, {DomainDescription: "d"},
	}
	analyses := make([]docAnalysis, len(docs))
	for i, ts := range [][]string{{"mcp", "server", "slide"}, {"mcp", "server", "weather"}, {"server", "note", "note"}, {"server", "note", "note"}, {"file"}} {
		analyses[i].terms[fieldDomainDescription] = ts
	}
	dropBoilerplate(docs, analyses)
	for i, want := range []string{"mcp slide", "mcp weather", "note note", "note note", "file"} {
		if got := strings.Join(analyses[i].terms[fieldDomainDescription], " "); got != want {
			t.Errorf("description %d: %q, want %q", i, got, want)
		}
	}
}
