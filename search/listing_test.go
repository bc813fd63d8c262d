package search

import (
	"slices"
	"testing"
)

// A request that names one item by its number or identifier is no request
// to list items, but for the things of a kind it asks for inside that
// item: "what emails are in workflow 8b2d4c" asks for
// list_automation_emails, "email f6g7 in workflow 4a2b9c" for
// get_automation_email.
func TestListingSparesTheToolOfTheRequestsPlurals(t *testing.T) {
	docs := []Document{
		{Name: "list_automation_emails", Description: "List the emails in an automation workflow.", Params: "workflow_id"},
		{Name: "get_automation_email", Description: "Get one email of an automation workflow: its subject, delay and settings.", Params: "workflow_id email_id"},
		{Name: "get_automation", Description: "Get an automation workflow's settings.", Params: "workflow_id"},
	}
	ix := NewIndex(docs)
	listingPenalised := func(request string) bool {
		t.Helper()
		hits, _ := ix.Search(Request{Text: request, Limit: 3, Explain: true})
		for _, h := range hits {
			if h.Doc == 0 {
				return slices.ContainsFunc(h.Explanation.Signals, func(s SignalScore) bool { return s.Signal == "listing" })
			}
		}
		t.Fatalf("%q: list_automation_emails not found", request)
		return false
	}
	if listingPenalised("What emails are in the welcome automation workflow 8b2d4c?") {
		t.Error("emails in workflow 8b2d4c: list_automation_emails penalised as a listing tool")
	}
	if !listingPenalised("What's the subject line and delay for email f6g7 in workflow 4a2b9c?") {
		t.Error("email f6g7: list_automation_emails not penalised as a listing tool")
	}
	hits, _ := ix.Search(Request{Text: "What's the subject line and delay for email f6g7 in workflow 4a2b9c?", Limit: 3})
	if len(hits) == 0 || docs[hits[0].Doc].Name != "get_automation_email" {
		t.Errorf("email f6g7: %v, want get_automation_email first", hits)
	}
}
