package search

import (
	"slices"
	"strings"
)

// Conversions. A tool named for converting one thing to another
// (html_to_markdown) does the opposite of a request that names the two
// the other way round ("convert this Markdown into HTML"); it keeps
// 1-backwardsPenalty of its score for it. Measured on the calibration
// requests: 0.2 and 0.4 alike. Penalising too a converter whose target
// the request does not name ("turn my outline into a mind map" against
// convert_markdown_to_mindmap) lost first places (read Hit@1 +3 -15).
const backwardsPenalty = 0.4

// conversionOrder returns, for a request that puts one thing into
// another ("Markdown into HTML", "from USD to EUR"), the stems of what it
// names with their first places among its words; nil for one that says
// no "to", "into" or "as".
func conversionOrder(text string, stems *stemCache) map[string]int {
	words := Words(text)
	if !slices.ContainsFunc(words, func(w string) bool { return targetWords[w] }) {
		return nil
	}
	order := make(map[string]int, len(words))
	for i, w := range words {
		s := stems.stem(w)
		if _, ok := order[s]; !ok {
			order[s] = i
		}
	}
	return order
}

type conversion struct{}

func (conversion) name() string { return "conversion direction" }

func (conversion) newDocs(int) signalDocs { return &conversionDocs{} }

type conversionDocs struct{ ix *Index }

func (*conversionDocs) analyze(int, *Document, *docAnalysis) {}

func (s *conversionDocs) finish(ix *Index, _ [][numFields][]int32) { s.ix = ix }

func (s *conversionDocs) query(r *ranking) signalQuery {
	order := conversionOrder(r.text, s.ix.stems)
	if order == nil {
		return nil
	}
	return &conversionQuery{ix: s.ix, order: order}
}

type conversionQuery struct {
	ix    *Index
	order map[string]int
}

func (*conversionQuery) read() string { return "the request puts one thing into another" }

func (q *conversionQuery) apply(docs []int32, scores []float64) {
	for i, d := range docs {
		add, times := q.effect(d)
		scores[i] = (scores[i] + add) * times
	}
}

func (q *conversionQuery) effect(d int32) (float64, float64) {
	return factor(q.ix.convertsBackwards(d, q.order), 1-backwardsPenalty)
}

func (*conversionQuery) reason(int32) string {
	return "its name converts the other way round from the request"
}

// convertsBackwards reports whether document d is named "a to b" (its
// name's words) where the request names b first and then, after "to",
// "into" or "as", a.
func (ix *Index) convertsBackwards(d int32, order map[string]int) bool {
	if !strings.Contains(ix.docNameWords[d], " to ") {
		return false // most names, and no allocation for them
	}
	name := strings.Fields(ix.docNameWords[d])
	k := slices.Index(name, "to")
	if k < 1 || k+1 >= len(name) {
		return false
	}
	from, okFrom := order[stemWord(name[k-1])]
	to, okTo := order[stemWord(name[k+1])]
	if !okFrom || !okTo || to >= from {
		return false
	}
	for _, t := range []string{"to", "into", "as"} {
		if i, ok := order[t]; ok && i > to && i < from {
			return true
		}
	}
	return false
}
