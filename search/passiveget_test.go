package search

import "testing"

// TestPassiveGetSaysNothing: a "get" followed by a past participle is an
// auxiliary, so "which labels get used most" asks for the tool that lists
// labels, not for get_label, whose name it would otherwise spell out
// whole. "get" as the request's verb still counts.
func TestPassiveGetSaysNothing(t *testing.T) {
	docs := []Document{
		{Name: "get_label", Description: "Get a specific label from a repository.", Domain: "github"},
		{Name: "list_label", Description: "List labels from a repository, ordered by issue count, so the most-used labels come first.", Domain: "github"},
		{Name: "create_label", Description: "Create a label in a repository.", Domain: "github"},
	}
	ix := NewIndex(docs)
	for q, want := range map[string]int{
		"Which labels get used most in the acme/api repo?": 1,
		"get the bug label of acme/api":                    0,
	} {
		if hits, _ := ix.Search(Request{Text: q, Limit: 3}); len(hits) == 0 || hits[0].Doc != want {
			t.Errorf("%q: want %s first, got %v", q, docs[want].Name, hits)
		}
	}
	for text, passive := range map[string]bool{
		"which labels get used most":            true,
		"the messages that got routed to Slack": true,
		"files that get written by the job":     true,
		"get the used labels":                   false,
		"get me the weather":                    false,
		"get archived messages":                 false,
		"can you get deleted files back":        false,
	} {
		if got := hasPassiveGet(text); got != passive {
			t.Errorf("%q: passive get %v, want %v", text, got, passive)
		}
	}
}
