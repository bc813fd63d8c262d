package search

import "fmt"

// Name coverage. A tool's name is the shortest statement of what it does:
// a request that spells out most of a name ("read file" for read_file)
// asks for that tool more than one that shares a word of it. The signal
// adds nameCoverageBonus times the share of the name's words the request
// holds, each counted at the weight of the request's word (less for a
// place word, see placeWords).

// nameCoverageBonus scales the share of a tool's name the request spells
// out.
const nameCoverageBonus = 3.0

type nameCoverage struct{}

func (nameCoverage) name() string { return "name coverage" }

func (nameCoverage) newDocs(n int) signalDocs {
	return &nameCoverageDocs{nameLen: make([]uint8, n)}
}

type nameCoverageDocs struct {
	// nameLen is the number of distinct terms of each document's name (at
	// most 255).
	nameLen []uint8
}

func (s *nameCoverageDocs) analyze(i int, _ *Document, a *docAnalysis) {
	s.nameLen[i] = uint8(min(len(distinctStrings(a.terms[fieldName])), 255))
}

func (s *nameCoverageDocs) query(r *ranking) signalQuery {
	return &nameCoverageQuery{docs: s, lex: r.lex}
}

type nameCoverageQuery struct {
	docs *nameCoverageDocs
	lex  *scratch
}

func (*nameCoverageQuery) read() string { return "tools' names" }

func (q *nameCoverageQuery) apply(docs []int32, scores []float64) {
	for i, d := range docs {
		add, times := q.effect(d)
		scores[i] = (scores[i] + add) * times
	}
}

func (q *nameCoverageQuery) effect(d int32) (float64, float64) {
	if n := q.docs.nameLen[d]; n > 0 {
		return nameCoverageBonus * q.lex.name[d] / float64(n), 1
	}
	return 0, 1
}

func (q *nameCoverageQuery) reason(d int32) string {
	return fmt.Sprintf("the request spells out %.2f of its name's %d words", q.lex.name[d], q.docs.nameLen[d])
}
