package search

import (
	"slices"
	"testing"
)

func TestNegatedVerbs(t *testing.T) {
	stems := newStemCache()
	cases := []struct {
		text string
		want []string // words, unstemmed
	}{
		{"Update prices on three items as drafts, don't publish.", []string{"publish"}},
		{"Archive the old admin login, do not delete it.", []string{"delete"}},
		{"Draft a reply to Mark’s email, but don’t send it yet.", []string{"send"}},
		{"Discard my recording session without generating a test", []string{"generating"}},
		{"Never actually send the invoice", []string{"send"}},
		{"Export the report instead of printing it", []string{"printing"}},
		// Used unnegated too: the request wants it.
		{"Publish the post now, don't publish the draft", nil},
		// Plain "not", and "without" before a noun, negate no verb.
		{"what files did I change but not stage yet", nil},
		{"list files without extension", nil},
		{"Delete the page", nil},
	}
	for _, c := range cases {
		got := negatedVerbs(c.text, stems)
		var want map[string]bool
		for _, w := range c.want {
			if want == nil {
				want = make(map[string]bool)
			}
			want[stems.stem(w)] = true
		}
		if len(got) != len(want) || !slices.Equal(slices.Sorted(mapKeys(got)), slices.Sorted(mapKeys(want))) {
			t.Errorf("negatedVerbs(%q) = %v, want %v", c.text, got, want)
		}
	}
}

func TestNegatedClauseIsNoStep(t *testing.T) {
	for _, c := range []struct {
		text  string
		steps int
	}{
		{"Draft a reply to Mark's Outlook email, but don't send it yet.", 0},
		{"Prepare a reply-all draft on the budget thread, don't send.", 0},
		{"Draft a reply to Mark's email, then send it to Lisa.", 2},
	} {
		if got := splitSteps(c.text); len(got) != c.steps {
			t.Errorf("splitSteps(%q) = %q, want %d steps", c.text, got, c.steps)
		}
	}
}

// A tool named for what a request says not to do, or to stop doing, ranks
// below the one that does what it asks, though it shares more of its
// words.
func TestSearchPenalizesTheNegatedAction(t *testing.T) {
	docs := []Document{
		{Name: "sandbox_expose_port", Description: "Expose a port from a sandbox to get a public URL."},
		{Name: "sandbox_remove_port", Description: "Remove an exposed port from a sandbox."},
		{Name: "collections_items_publish_items", Description: "Publish draft items of a collection live."},
		{Name: "collections_items_update_items", Description: "Update items of a collection."},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Stop exposing port 8080 on sandbox sb-dev-17.", 1)
	wantFirst(t, ix, docs, "Expose port 8080 on sandbox sb-dev-17.", 0)
	wantFirst(t, ix, docs, "Update prices on three draft items in the Products collection, don't publish.", 3)
	wantFirst(t, ix, docs, "Publish the three items in the Products collection.", 2)
}

// A tool that removes is spared for a request to stop doing something,
// but not when what the request does not want done is the removing:
// "undo the deletion" and "don't delete it" want the ticket kept.
func TestSearchPenalizesTheUnwantedRemoval(t *testing.T) {
	docs := []Document{
		{Name: "delete_ticket", Description: "Soft-delete a ticket.", Params: "ticket_id", ParamNames: "ticket_id"},
		{Name: "restore_ticket", Description: "Restore a deleted ticket.", Params: "ticket_id", ParamNames: "ticket_id"},
		{Name: "archive_ticket", Description: "Archive a ticket.", Params: "ticket_id", ParamNames: "ticket_id"},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Undo the deletion of ticket 4410, we still need it.", 1)
	wantFirst(t, ix, docs, "Delete ticket 4410.", 0)
}

func TestUnwantedVerbs(t *testing.T) {
	stems := newStemCache()
	for _, c := range []struct {
		text string
		want []string
	}{
		{"Stop exposing port 8080 on sandbox sb-dev-17.", []string{"expos"}},
		{"Please stop sharing the plan with tom@acme.com", []string{"share"}},
		{"Archive the old login, don't delete it", []string{"delet"}},
		// "stop" that is not the request's verb stops nothing.
		{"Find the bus stop timing for route 9", nil},
		{"Stop the recording", nil},
		{"Undo the deletion of ticket 4410, we still need it.", []string{"delet"}},
		{"please undo my last merge", []string{"merg"}},
		// "undo" that is not the request's verb undoes nothing.
		{"Find the undo history of doc 12", nil},
		{"Undo", nil},
	} {
		if got := unwantedVerbs(c.text, stems); !slices.Equal(got, c.want) {
			t.Errorf("unwantedVerbs(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}
