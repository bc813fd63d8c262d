package search

import (
	"slices"
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		"getHTTPResponse":              {"get", "http", "response"},
		"crm_people-search.v2":         {"crm", "people", "search", "v2"},
		"Read a file (UTF-8)":          {"read", "a", "file", "utf", "8"},
		"Café Überweisung":             {"cafe", "uberweisung"},
		"必应搜索 bing_search":             {"必", "应", "搜", "索", "bing", "search"},
		"":                             nil,
		"  --__..  ":                   nil,
		"listAllS3Buckets":             {"list", "all", "s3", "buckets"},
		"Merge these PDFs, not URLs":   {"merge", "these", "pdf", "not", "url"},
		"getIDs":                       {"get", "id"},
		"I'd print it in 3D, I’m sure": {"i", "print", "it", "in", "3", "d", "i", "sure"},
		"\x00\xff invalid utf8 \u200b": {"invalid", "utf8"},
		// Invalid UTF-8 separates words, whatever follows it.
		"0\xf1Ά":  {"0", "α"},
		"0\xf1Ά ": {"0", "α"},
	} {
		if got := Words(in); !slices.Equal(got, want) {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
}

// The parts Words leaves of a contraction are no terms: "I've" must not
// match a description that happens to hold "ve".
func TestTermsDropContractionParts(t *testing.T) {
	got := terms("I've checked, it doesn't load and we'll retry; I'm sure I'd print it in 3D", newStemCache())
	want := []string{"check", "load", "retri", "sure", "print", "3", "d"}
	if !slices.Equal(got, want) {
		t.Errorf("terms = %q, want %q", got, want)
	}
}

// Prepositions that Snowball's list lacks are stop words as "in" is:
// "what's inside /home/joe/projects" asks what is in a folder, and
// "inside" stems as "insider" does. So are indefinite pronouns.
func TestFunctionWordsAreStopWords(t *testing.T) {
	if got := terms("what's inside the box, within reach, among friends: everything", newStemCache()); !slices.Equal(got, []string{"box", "reach", "friend"}) {
		t.Errorf("terms = %q", got)
	}
	docs := []Document{
		{Name: "get_insider_trades", Description: "Get insider trades of a company.", Params: "ticker"},
		{Name: "list_directory", Description: "List the files and directories in a directory.", Params: "path"},
	}
	wantFirst(t, NewIndex(docs), docs, "What's inside the /home/joe/projects folder?", 1)
}

// Snowball undoubles the last letter of what "-ed" and "-ing" leave, so
// "added" and "adding" stemmed to "ad", apart from "add": a tool "for
// adding text" did not match "add a text box". Words whose stem is
// longer still undouble.
func TestStemKeepsTheDoubleOfAShortWord(t *testing.T) {
	for _, group := range [][]string{
		{"add", "added", "adding", "adds"},
		{"err", "erred", "erring"},
		{"hop", "hopping", "hopped"},
		{"stop", "stopping", "stopped"},
		{"plan", "planning", "planned"},
	} {
		for _, w := range group[1:] {
			if got, want := stemWord(w), stemWord(group[0]); got != want {
				t.Errorf("stem of %q = %q, want %q (the stem of %q)", w, got, want, group[0])
			}
		}
	}
	if got := stemWord("hoping"); got == stemWord("hop") {
		t.Errorf("hoping stems to %q, as hop does", got)
	}
}

func TestSearchRanks(t *testing.T) {
	docs := []Document{
		{Name: "read_file", Description: "Read the complete contents of a file from the file system.", Domain: "filesystem"},
		{Name: "write_file", Description: "Create a new file or overwrite an existing file.", Domain: "filesystem"},
		{Name: "get_stock_info", Description: "Get stock information for a ticker symbol.", Domain: "yahoo-finance"},
		{Name: "search", Description: "Search the web.", Params: "query the file type to look for", Domain: "bing"},
		{Name: "bing_search", Description: "使用必应搜索指定的关键词", Domain: "bing-cn"},
	}
	ix := NewIndex(docs)
	hits, total := ix.Search(Request{Text: "read file", Limit: 10})
	if total == 0 || hits[0].Doc != 0 {
		t.Fatalf("read file: %v", hits)
	}
	// A name match outranks a parameter mention.
	if i := slices.IndexFunc(hits, func(h Hit) bool { return h.Doc == 3 }); i >= 0 && i < 2 {
		t.Errorf("a parameter mention ranks %d: %v", i, hits)
	}
	if hits, _ := ix.Search(Request{Text: "kubernetes pods", Limit: 10}); len(hits) != 0 {
		t.Errorf("a query matching nothing returns %v", hits)
	}
	if hits, _ := ix.Search(Request{Text: "搜索", Limit: 10}); len(hits) == 0 || hits[0].Doc != 4 {
		t.Errorf("Chinese query: %v", hits)
	}
	hits, total = ix.Search(Request{Text: "file", Limit: 1, Allow: func(doc int) bool { return doc != 0 }})
	if total != 2 || len(hits) != 1 || hits[0].Doc == 0 {
		t.Errorf("filtered, limited search: total %d hits %v", total, hits)
	}
	if hits, _ := ix.Search(Request{Text: strings.Repeat("(((", 1000), Limit: 10}); len(hits) != 0 {
		t.Errorf("punctuation query: %v", hits)
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"memory.read_graph", "memory.search_nodes", "memory.create_relations", "apollo.people_search", "apollo.org_search"}
	for in, want := range map[string]string{
		"memory.read_grpah": "memory.read_graph",    // transposition
		"read_graph":        "memory.read_graph",    // missing domain
		"search_people":     "apollo.people_search", // words reordered
	} {
		got := Suggest(in, names, 3)
		if len(got) == 0 || names[got[0]] != want {
			var gotNames []string
			for _, i := range got {
				gotNames = append(gotNames, names[i])
			}
			t.Errorf("Suggest(%q) = %v, want %q first", in, gotNames, want)
		}
	}
	// An abbreviation of two names suggests both (the seed's example).
	if got := Suggest("apollo_search", names, 3); len(got) != 2 || !slices.Contains(got, 3) || !slices.Contains(got, 4) {
		t.Errorf("Suggest(apollo_search) = %v, want apollo's two search tools", got)
	}
	if got := Suggest("kubernetes", names, 3); len(got) != 0 {
		t.Errorf("Suggest(kubernetes) = %v, want nothing", got)
	}
	if got := Suggest(strings.Repeat("x", 5000), names, 3); len(got) != 0 {
		t.Errorf("a hostile long input gets suggestions: %v", got)
	}
}

// TestWordsASCIIFastPath checks the ASCII path splits as the Unicode one.
func TestWordsASCIIFastPath(t *testing.T) {
	for _, in := range []string{"getHTTPResponse", "crm_people-search.v2", "listAllS3Buckets", "ABCDef", "a1B2c3", "  x  ", "HTTPServer2Go", "iPhone15Pro", "", "__", "PDFs", "getIDs", "URLs2", "APIsList", "Ds", "s"} {
		fast := asciiWords(in)
		// A non-ASCII space forces the Unicode path without adding a word.
		slow := Words(in + "\u00a0")
		if !slices.Equal(fast, slow) {
			t.Errorf("%q: ASCII path %q, Unicode path %q", in, fast, slow)
		}
	}
}
