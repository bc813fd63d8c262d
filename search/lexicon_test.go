package search

import (
	"strings"
	"testing"
)

// Every word of the word lists is one word as the search reads text:
// a word it splits or folds would never match.
func TestLexiconWordsAreWords(t *testing.T) {
	for _, file := range []string{"stopwords.txt", "requestwords.txt", "thesaurus.txt"} {
		for _, w := range strings.Fields(lexiconFile(file)) {
			if got := Words(w); len(got) != 1 || got[0] != w {
				t.Errorf("%s: %q reads as %q", file, w, got)
			}
		}
	}
	for phrase, meaning := range idioms {
		if got := strings.Join(Words(phrase), " "); got != phrase {
			t.Errorf("idioms.txt: %q reads as %q", phrase, got)
		}
		if strings.TrimSpace(meaning) == "" {
			t.Errorf("idioms.txt: %q means nothing", phrase)
		}
	}
	if len(stopWords) < 100 || len(requestWords) < 10 || len(synonymGroups) < 20 || len(idioms) < 10 {
		t.Errorf("lexicon: %d stop words, %d request words, %d groups, %d idioms", len(stopWords), len(requestWords), len(synonymGroups), len(idioms))
	}
}

func TestParseSynonyms(t *testing.T) {
	groups, err := ParseSynonyms("# my words\ninvoice bill Receipt  # money in\n\n  kubectl k8s kubernetes\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 || groups[0] != "invoice bill receipt" || groups[1] != "kubectl k8s kubernetes" {
		t.Errorf("groups = %q", groups)
	}
	for text, want := range map[string]string{
		"invoice\n":            "line 1: a group of synonyms needs two words",
		"ok fine\ne-mail mail": `line 2: "e-mail" is not one word as the search reads text (it reads "e mail")`,
		"café coffee":          `"café" is not one word`,
	} {
		if _, err := ParseSynonyms(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSynonyms(%q) = %v, want %q", text, err, want)
		}
	}
}

func TestParseIdioms(t *testing.T) {
	got, err := parseIdioms("get rid of = delete # idiom\nlook up = lookup\n")
	if err != nil || got["get rid of"] != "delete" || got["look up"] != "lookup" {
		t.Errorf("parseIdioms = %v, %v", got, err)
	}
	for _, bad := range []string{"lookup = find", "a b c d e = x", "look up delete", "look up =", "a b = c\na  b = d"} {
		if _, err := parseIdioms(bad); err == nil {
			t.Errorf("parseIdioms(%q) took it", bad)
		}
	}
}

// An operator's synonyms join the lexicon's for their index only.
func TestOperatorSynonyms(t *testing.T) {
	docs := []Document{
		{Name: "create_invoice", Description: "Create an invoice for a customer."},
		{Name: "send_email", Description: "Send an email."},
	}
	plain := NewIndex(docs)
	withBill := NewIndexWith(docs, Options{Synonyms: []string{"invoice bill"}})
	hits, _ := withBill.Search(Request{Text: "draw up a bill for ACME", Limit: 2, Explain: true})
	if len(hits) == 0 || hits[0].Doc != 0 {
		t.Fatalf("with the group, hits %v", hits)
	}
	if w := hits[0].Explanation.Words; len(w) == 0 || w[0].Terms[0].Match != matchSynonym.String() {
		t.Errorf("the explanation does not say bill matched invoice as a synonym: %+v", w)
	}
	if hits, _ := plain.Search(Request{Text: "draw up a bill for ACME", Limit: 2}); len(hits) != 0 {
		t.Errorf("without the group, hits %v", hits)
	}
	if len(synonymsByStem["bill"]) != 0 {
		t.Errorf("the operator's group changed the lexicon's thesaurus: %v", synonymsByStem["bill"])
	}
}
