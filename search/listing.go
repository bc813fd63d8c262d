package search

import "strings"

// Listing. A tool named for listing (list_directory,
// list_available_documents, list_presentations) enumerates what there is;
// a request that names a file (report.docx, /var/log/app.log) already
// knows what it wants to act on, and a listing tool that matches it
// matches the kind of file, not the request: "pull all the text out of
// resume.docx" is no request to list Word documents. Nor is a request
// that names one item by its number or id ("what's on slide 4", see
// numberedItems) one to list things, unless it asks about several things
// of a kind (see pluralsOf) that the listing tool lists: "the emails in
// workflow 8b2d4c" asks for list_automation_emails. For such requests a
// listing tool keeps 1-listingPenalty of its score.
//
// Measured on LiveMCPBench's tools and the task sets of
// internal/livemcpbench: 0.2 gained 17 first places (calib 16, fresh 1)
// and lost none; from 0.2 to 0.3 the figures barely move.
const listingPenalty = 0.2

type listing struct{}

func (listing) name() string { return "listing" }

func (listing) newDocs(n int) signalDocs {
	return &listingDocs{lists: make([]bool, n), listed: make([][]string, n)}
}

type listingDocs struct {
	lists []bool // whether each document lists (see listingTool)
	// listed are, for each listing tool, the stems of its name's words
	// but its verb: what it lists.
	listed [][]string
}

func (s *listingDocs) analyze(i int, _ *Document, a *docAnalysis) {
	s.lists[i] = listingTool(a.nameWordList)
	if s.lists[i] {
		for _, w := range a.nameWordList[1:] {
			s.listed[i] = append(s.listed[i], a.stems.stem(w))
		}
	}
}

func (s *listingDocs) query(r *ranking) signalQuery {
	if r.read.namesFile {
		return &listingQuery{docs: s, names: "a file"}
	}
	if len(r.numberedItems()) > 0 {
		q := &listingQuery{docs: s, names: "an item by its number or id"}
		if !searches(r.text) {
			q.plurals = pluralsOf(r.text)
		}
		return q
	}
	return nil
}

type listingQuery struct {
	docs  *listingDocs
	names string // what the request names
	// plurals are what a request that names an item asks about in the
	// plural: a listing tool that lists them is no listing of items.
	plurals []plural
}

func (q *listingQuery) read() string { return "the request names " + q.names }

func (q *listingQuery) apply(docs []int32, scores []float64) {
	for i, d := range docs {
		add, times := q.effect(d)
		scores[i] = (scores[i] + add) * times
	}
}

func (q *listingQuery) effect(d int32) (float64, float64) {
	return factor(q.docs.lists[d] && !q.listsAskedPlural(d), 1-listingPenalty)
}

// listsAskedPlural reports whether listing tool d lists what the request
// asks about in the plural: its name, past its verb, holds the stem of a
// plural, or, for a plural of minPluralPrefix letters or more, a stem
// the plural's is the start of ("repos", "repositories").
func (q *listingQuery) listsAskedPlural(d int32) bool {
	for _, st := range q.docs.listed[d] {
		for _, p := range q.plurals {
			if st == p.stem || len(p.stem) >= minPluralPrefix && strings.HasPrefix(st, p.stem) {
				return true
			}
		}
	}
	return false
}

func (q *listingQuery) reason(int32) string {
	return "a tool named for listing, for a request that names " + q.names + " to act on"
}

// listingTool reports whether a tool's name (its Words) says it lists:
// its first word is "list".
func listingTool(nameWords []string) bool {
	return len(nameWords) > 0 && nameWords[0] == "list"
}
