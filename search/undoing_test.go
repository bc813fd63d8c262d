package search

import "testing"

// TestUndoingRequestsFindUndoingTools: a request to remove something
// ranks the tool named for removing it above one whose description only
// mentions removing; a request to add something gains nothing of the
// kind (the bonus is for undoing alone).
func TestUndoingRequestsFindUndoingTools(t *testing.T) {
	docs := []Document{
		{Name: "manage_slide_transitions", Description: "Manage slide transitions and timing: add, change or remove the transition of a slide in a presentation.", Domain: "ppt"},
		{Name: "delete_slide", Description: "Delete a slide by its number from a deck.", Domain: "deck"},
		{Name: "add_slide", Description: "Add a slide to a presentation.", Domain: "ppt"},
	}
	ix := NewIndex(docs)
	hits, _ := ix.Search(Request{Text: "Remove slide 4 from the presentation", Limit: 3, Explain: true})
	if len(hits) == 0 || hits[0].Doc != 1 {
		t.Fatalf("remove slide 4: want delete_slide first, got %v", hits)
	}
	found := false
	for _, s := range hits[0].Explanation.Signals {
		if s.Signal == "do or undo" && s.Times > 1 {
			found = true
		}
	}
	if !found {
		t.Errorf("delete_slide's explanation does not say the undoing bonus applied: %+v", hits[0].Explanation.Signals)
	}
}
