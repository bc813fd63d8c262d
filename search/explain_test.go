package search

import (
	"math"
	"strings"
	"testing"
)

// An explanation adds up: its words' scores are its BM25F, the signals
// applied in order give the hit's score exactly, and the order of the hits
// is the order of the keys its stages give. Explaining changes no
// ranking. Checked on a sample of the golden requests.
func TestExplanationsAddUp(t *testing.T) {
	docs, names := livemcpbenchDocs(t)
	ix := NewIndex(docs)
	checked, moved, signalled := 0, 0, 0
	for _, set := range goldenSets {
		for i, request := range goldenRequests(t, set) {
			if i%23 != 0 || (raceDetector && i%230 != 0) {
				continue
			}
			checked++
			plain, total := ix.Search(Request{Text: request, Limit: 10})
			hits, totalExplained := ix.Search(Request{Text: request, Limit: 10, Explain: true})
			if total != totalExplained || len(hits) != len(plain) {
				t.Fatalf("%q: explaining changed the hits: %d of %d, want %d of %d", request, len(hits), totalExplained, len(plain), total)
			}
			for j, h := range hits {
				if h.Doc != plain[j].Doc || h.Score != plain[j].Score {
					t.Fatalf("%q: explaining changed place %d: %s, want %s", request, j+1, names[h.Doc], names[plain[j].Doc])
				}
				e := h.Explanation
				if e == nil {
					t.Fatalf("%q: hit %s without an explanation", request, names[h.Doc])
				}
				sum := 0.0
				for _, w := range e.Words {
					sum += w.Score
					if len(w.Terms) == 0 {
						t.Errorf("%q: word %s of %s matches no term", request, w.Word, names[h.Doc])
					}
					for _, term := range w.Terms {
						if len(term.Fields) == 0 {
							t.Errorf("%q: term %s of %s in no field", request, term.Term, names[h.Doc])
						}
					}
				}
				if sum != e.BM25F {
					t.Errorf("%q: %s: words sum to %v, BM25F %v", request, names[h.Doc], sum, e.BM25F)
				}
				s := e.BM25F
				for _, sig := range e.Signals {
					times := sig.Times
					if times == 0 {
						times = 1
					}
					s = (s + sig.Add) * times
					if s != sig.Score {
						t.Errorf("%q: %s: after %s %v, explanation says %v", request, names[h.Doc], sig.Signal, s, sig.Score)
					}
					signalled++
				}
				if s != h.Score || e.Score != h.Score {
					t.Errorf("%q: %s: explained score %v (%v), hit's %v", request, names[h.Doc], s, e.Score, h.Score)
				}
				if len(e.Moves) > 0 {
					moved++
				}
			}
			checkOrderExplained(t, request, hits, names)
		}
	}
	if checked == 0 || moved == 0 || signalled == 0 {
		t.Errorf("%d requests checked, %d hits moved, %d signals: the sample explains nothing", checked, moved, signalled)
	}
}

// checkOrderExplained checks that the hits are in the order their
// explanations give: within a stage (a rerank's range, or the scores no
// rerank moved), keys do not rise.
func checkOrderExplained(t *testing.T, request string, hits []Hit, names []string) {
	t.Helper()
	key := func(h Hit) (stage string, k float64) {
		if m := h.Explanation.Moves; len(m) > 0 {
			last := m[len(m)-1]
			stage = last.Rerank
			if last.Rerank == "meaning" && strings.Contains(last.Reason, "tie on score") {
				stage = last.Reason // one group of ties
			}
			return stage, last.Key
		}
		return "score", h.Score
	}
	for i := 1; i < len(hits); i++ {
		sa, ka := key(hits[i-1])
		sb, kb := key(hits[i])
		if sa == sb && kb > ka && !(sa == "steps" && i == 1) {
			t.Errorf("%q: place %d (%s, %s key %v) above place %d (%s, key %v)", request, i, names[hits[i-1].Doc], sa, ka, i+1, names[hits[i].Doc], kb)
		}
	}
}

// An explanation names the words, terms, fields and signals that made a
// score, and the rerank that moved a hit.
func TestExplanationSaysWhy(t *testing.T) {
	docs := []Document{
		{Name: "list_presentations", Description: "List the presentations in a folder.", ParamNames: "folder"},
		{Name: "get_slide_text", Description: "Get the text of a slide of a presentation.", ParamNames: "file slide_index"},
		{Name: "add_slide", Description: "Add a slide to a presentation.", ParamNames: "file layout"},
	}
	ix := NewIndex(docs)
	hits, _ := ix.Search(Request{Text: "what's on slide 4 of deck.pptx", Limit: 3, Explain: true})
	if len(hits) != 3 || hits[0].Doc != 1 {
		t.Fatalf("hits %v", hits)
	}
	e := hits[0].Explanation
	var words []string
	for _, w := range e.Words {
		words = append(words, w.Word)
	}
	if !strings.Contains(strings.Join(words, " "), "slide") {
		t.Errorf("the explanation of get_slide_text lacks the word slide: %v", words)
	}
	found := false
	for _, w := range e.Words {
		for _, term := range w.Terms {
			if term.Term == "slide" && strings.Contains(strings.Join(term.Fields, " "), "name") {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("the explanation does not say slide is in get_slide_text's name: %+v", e.Words)
	}
	signalsOf := func(h Hit) map[string]SignalScore {
		out := map[string]SignalScore{}
		for _, s := range h.Explanation.Signals {
			out[s.Signal] = s
		}
		return out
	}
	for _, h := range hits {
		s := signalsOf(h)
		switch h.Doc {
		case 0:
			if l, ok := s["listing"]; !ok || math.Abs(l.Times-(1-listingPenalty)) > 1e-12 {
				t.Errorf("list_presentations: no listing penalty in %v", h.Explanation.Signals)
			}
		case 2:
			if _, ok := s["ask or act"]; !ok {
				t.Errorf("add_slide: no ask-or-act penalty in %v", h.Explanation.Signals)
			}
		}
	}
	if e.Request == nil || len(e.Request.Signals) == 0 {
		t.Errorf("no reading of the request: %+v", e.Request)
	}
	if s := e.String(); !strings.Contains(s, "BM25F") || !strings.Contains(s, "slide") {
		t.Errorf("String() = %q", s)
	}
}
