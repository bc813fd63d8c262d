//go:build mcpgateway_lean

package search

import "testing"

// A lean build carries no word vectors: no word has one, an index holds
// no meaning vectors, and a search still ranks by the words alone, with
// no rerank by meaning in its explanation.
func TestLeanBuildRanksByWordsAlone(t *testing.T) {
	if wordVectorRow("file") >= 0 {
		t.Fatal("a lean build found a word vector for \"file\"")
	}
	ix := NewIndex(fileTools)
	if ix.meaning != nil {
		t.Fatal("a lean build's index holds meaning vectors")
	}
	hits, _ := ix.Search(Request{Text: "delete the file", Limit: 3, Explain: true})
	if len(hits) == 0 || fileTools[hits[0].Doc].Name != "delete_file" {
		t.Fatalf("delete the file: want delete_file first, got %v", hits)
	}
	for _, h := range hits {
		for _, m := range h.Explanation.Moves {
			if m.Rerank == "meaning" {
				t.Errorf("%s: a lean build explains a rerank by meaning: %+v", fileTools[h.Doc].Name, m)
			}
		}
	}
}
