package search

import (
	"slices"
	"strings"
	"testing"
)

func TestParseQuery(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Query
	}{
		{"send email", Query{Text: "send email", Limit: DefaultLimit, Page: 1}},
		{"+slack send", Query{Text: "slack send", Required: []string{"slack"}, Limit: DefaultLimit, Page: 1}},
		// A "+" before a digit is a phone number's or a number's sign, not
		// a required word: a request quoting one still finds tools.
		{"texts sent to +14155550123 last week", Query{Text: "texts sent to +14155550123 last week", Limit: DefaultLimit, Page: 1}},
		{"+44 20 7946 0958 +sms", Query{Text: "+44 20 7946 0958 sms", Required: []string{"sms"}, Limit: DefaultLimit, Page: 1}},
		{"select:a.b,c.d", Query{Select: []string{"a.b", "c.d"}, Limit: DefaultLimit, Page: 1}},
		{"SELECT: a.b, c.d", Query{Select: []string{"a.b", "c.d"}, Limit: DefaultLimit, Page: 1}},
		{"issues domain:github group:issues limit:3 page:2", Query{Text: "issues", Domain: "github", Group: "issues", Limit: 3, Page: 2}},
		{"limit:500 x", Query{Text: "x", Limit: MaxLimit, Page: 1}},
		{"domain search", Query{Text: "domain search", Limit: DefaultLimit, Page: 1}},
		{"http://example.com/a", Query{Text: "http://example.com/a", Limit: DefaultLimit, Page: 1}},
		{"x page:100000 limit:99999999999", Query{Text: "x", Limit: MaxLimit, Page: MaxPage}},
	} {
		got, err := ParseQuery(tc.in)
		if err != nil {
			t.Errorf("ParseQuery(%q): %v", tc.in, err)
			continue
		}
		if got.Text != tc.want.Text || !slices.Equal(got.Required, tc.want.Required) || !slices.Equal(got.Select, tc.want.Select) ||
			got.Domain != tc.want.Domain || got.Group != tc.want.Group || got.Limit != tc.want.Limit || got.Page != tc.want.Page || got.Regex != nil {
			t.Errorf("ParseQuery(%q) = %+v, want %+v", tc.in, *got, tc.want)
		}
	}
	re, err := ParseQuery("/^GitHub_.*issue/ limit:5")
	if err != nil || re.Regex == nil || !re.Regex.MatchString("github_create_issue") || re.Limit != 5 {
		t.Errorf("regex query: %+v, %v", re, err)
	}
	if re, err := ParseQuery("/(create|delete|update)_(issue|pull_request){1,3}/"); err != nil || re.RegexSteps == 0 || re.RegexSteps > MaxRegexSteps {
		t.Errorf("an ordinary regex with a counted repeat: %+v %v", re, err)
	}
	if re, err := ParseQuery("/a/b/"); err != nil || !re.Regex.MatchString("a/b") {
		t.Errorf("a regex holding a slash: %+v %v", re, err)
	}
	for in, want := range map[string]string{
		"select:":                            "needs tool names",
		"/[a-/":                              "bad regex",
		"/" + strings.Repeat("a", 201) + "/": "the limit is 200",
		"/(?:" + strings.Repeat(".?", 48) + "){1000}z/": "too costly to run",
		"/(?:.?){1000}z/":               "too costly to run",
		"/abc":                          "/pattern/",
		"/abc/ more words":              "no other words",
		"x limit:0":                     "positive number",
		"x page:two":                    "positive number",
		"add page:9223372036854775807":  "page: is at most 100000",
		"add page:99999999999999999999": "positive number",
	} {
		if _, err := ParseQuery(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseQuery(%q) error = %v, want %q", in, err, want)
		}
	}
}

func TestRequiredWords(t *testing.T) {
	ix := NewIndex([]Document{
		{Name: "slack_send_message", Description: "Send a message to a Slack channel."},
		{Name: "send_email", Description: "Send an email."},
		{Name: "teams_post", Description: "Post to Teams; like Slack but not."},
	})
	hits, total := ix.Search(Request{Text: "send", Required: []string{"slack"}, Limit: 10})
	if total != 2 || hits[0].Doc != 0 {
		t.Errorf("+slack send: total %d, hits %v; want the two documents mentioning slack, slack_send_message first", total, hits)
	}
	if _, total := ix.Search(Request{Text: "send", Required: []string{"discord"}, Limit: 10}); total != 0 {
		t.Errorf("a required word no document has: %d hits", total)
	}
}

func TestFuzzyMatching(t *testing.T) {
	ix := NewIndex([]Document{
		{Name: "get_github_trending_repositories", Description: "Get trending repositories on GitHub."},
		{Name: "find_ev_charging_stations", Description: "Locate electric vehicle charging stations."},
		{Name: "get_weather", Description: "Current weather for a location."},
		{Name: "getUserSubmissions", Description: "Get the stories and comments a user posted."},
		{Name: "getUser", Description: "Get a user's profile."},
	})
	for query, want := range map[string]int{
		"what has user pg submitted": 3, // a sibling: submit, submission
		"trending repos":             0, // a prefix of an indexed word
		"ev chargers":                1, // an indexed word is a prefix of it
		"wether":                     2, // one typo, not itself indexed
		"GitHub's repository":        0, // possessive and stemming
		"charging station map":       1,
	} {
		hits, _ := ix.Search(Request{Text: query, Limit: 3})
		if len(hits) == 0 || hits[0].Doc != want {
			t.Errorf("%q: hits %v, want document %d first", query, hits, want)
		}
	}
}

// A word of English is no typo of a word one other letter in its place
// would spell ("tower", "power"); a misspelling still is ("powwer").
func TestEnglishWordsAreNoTypos(t *testing.T) {
	needsData(t)
	ix := NewIndex([]Document{{Name: "power_off", Description: "Switch the power off."}})
	if hits, _ := ix.Search(Request{Text: "Eiffel Tower", Limit: 3}); len(hits) != 0 {
		t.Errorf("tower matches power: %v", hits)
	}
	if hits, _ := ix.Search(Request{Text: "powwer off", Limit: 3}); len(hits) != 1 {
		t.Errorf("powwer: hits %v, want power_off", hits)
	}
}

func TestNumbersMatchOnlyThemselves(t *testing.T) {
	ix := NewIndex([]Document{{Name: "generate_funnel_chart", Description: "Funnel chart, e.g. 15000 visits, 1200 sign-ups."}})
	if hits, _ := ix.Search(Request{Text: "1500", Limit: 3}); len(hits) != 0 {
		t.Errorf("1500 matches 15000: %v", hits)
	}
	if hits, _ := ix.Search(Request{Text: "1200", Limit: 3}); len(hits) != 1 {
		t.Errorf("1200: hits %v, want the funnel chart", hits)
	}
}

func TestSiblingsAreNoOtherWords(t *testing.T) {
	ix := NewIndex([]Document{{Name: "describe_architecture", Description: "Describe a system's architecture."}})
	if hits, _ := ix.Search(Request{Text: "archive", Limit: 3}); len(hits) != 0 {
		t.Errorf("archive matches architecture: %v", hits)
	}
}

func TestPaging(t *testing.T) {
	var docs []Document
	for range 25 {
		docs = append(docs, Document{Name: "report", Description: "Make a report."})
	}
	ix := NewIndex(docs)
	var seen []int
	for page := 0; page < 3; page++ {
		hits, total := ix.Search(Request{Text: "report", Offset: page * 10, Limit: 10})
		if total != 25 {
			t.Fatalf("total = %d", total)
		}
		for _, h := range hits {
			seen = append(seen, h.Doc)
		}
	}
	slices.Sort(seen)
	if len(seen) != 25 || slices.Compact(seen)[24] != 24 {
		t.Errorf("three pages hold %v, want each of the 25 documents once", seen)
	}
}

func TestCompoundQueryWord(t *testing.T) {
	ix := NewIndex([]Document{
		{Name: "convert_markdown_to_mind_map", Description: "Turn Markdown into a mind map."},
		{Name: "draw_map", Description: "Draw a map."},
	})
	hits, _ := ix.Search(Request{Text: "mindmap", Limit: 2})
	if len(hits) == 0 || hits[0].Doc != 0 {
		t.Errorf("mindmap: %v", hits)
	}
}
