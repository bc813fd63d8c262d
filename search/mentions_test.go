package search

import "testing"

func TestWithoutMentions(t *testing.T) {
	mentions := toolNameMentions([]Document{{Name: "get-tickets"}, {Name: "get_current_date"}, {Name: "readFile"}, {Name: "search"}})
	for _, c := range []struct{ text, own, want string }{
		{"Codes come from `get-tickets` results.", "get-train-route-stations", "Codes come from ` ` results."},
		{"Call get_current_date first, then readFile.", "x", "Call   first, then  ."},
		// Its own name stays, and so do one-word names and longer words.
		{"get-tickets lists tickets; see search.", "get-tickets", "get-tickets lists tickets; see search."},
		{"use get-tickets-by-date or my_get_current_date", "x", "use get-tickets-by-date or my_get_current_date"},
		{"余票 `get-tickets` 结果", "x", "余票 ` ` 结果"},
		{"", "x", ""},
	} {
		if got := withoutMentions(c.text, c.own, mentions); got != c.want {
			t.Errorf("withoutMentions(%q, %q) = %q, want %q", c.text, c.own, got, c.want)
		}
	}
}

// A tool whose text names another tool is not a match for that tool's
// words: a request for train tickets does not find the tool whose
// parameters say their codes come from get-tickets.
func TestSearchIgnoresMentionsOfOtherTools(t *testing.T) {
	docs := []Document{
		{Name: "get-train-route-stations", Description: "List the stations a train stops at, with times.",
			Params: "fromStationTelecode The first station's code, from get-tickets. trainNo The train number, from `get-tickets`."},
		{Name: "get-tickets", Description: "查询12306余票信息。"},
		{Name: "get-current-date", Description: "The current date."},
	}
	hits, total := NewIndex(docs).Search(Request{Text: "tickets", Limit: 3})
	if total != 1 || docs[hits[0].Doc].Name != "get-tickets" {
		t.Errorf("tickets: %d hits %v, want get-tickets alone", total, hits)
	}
}
