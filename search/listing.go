package search

// Listing. A tool named for listing (list_directory,
// list_available_documents, list_presentations) enumerates what there is;
// a request that names a file (report.docx, /var/log/app.log) already
// knows what it wants to act on, and a listing tool that matches it
// matches the kind of file, not the request: "pull all the text out of
// resume.docx" is no request to list Word documents. Nor is a request
// that names one item by its number or code ("what's on slide 4", "show
// folder 7a1b3c", see codedItems) one to list them. For such requests a listing tool keeps
// 1-listingPenalty of its score; but for a named item, not one that
// takes the item as a parameter (list_chapters of a bookId, for "the
// table of contents of book 57"): it lists what is in the item.
// How it was chosen: docs/search.md, "The tuned values".
const listingPenalty = 0.2

type listing struct{}

func (listing) name() string { return "listing" }

func (listing) newDocs(n int) signalDocs { return &listingDocs{lists: make([]bool, n)} }

type listingDocs struct {
	lists []bool // whether each document lists (see listingTool)
	ix    *Index
}

func (s *listingDocs) finish(ix *Index, _ [][numFields][]int32) { s.ix = ix }

func (s *listingDocs) analyze(i int, _ *Document, a *docAnalysis) {
	s.lists[i] = listingTool(a.nameWordList)
}

func (s *listingDocs) query(r *ranking) signalQuery {
	if r.read.namesFile {
		return &listingQuery{docs: s, names: "a file"}
	}
	if items := codedItems(r.text); len(items) > 0 {
		return &listingQuery{docs: s, names: "an item by its number or code", items: items}
	}
	return nil
}

type listingQuery struct {
	docs  *listingDocs
	names string // what the request names
	// items are the items the request names by number or code: a listing tool
	// that takes one (list_chapters of a book_id, for "book 57") lists
	// what is in it, and keeps its score.
	items []string
}

func (q *listingQuery) read() string { return "the request names " + q.names }

func (q *listingQuery) apply(docs []int32, scores []float64) {
	for i, d := range docs {
		add, times := q.effect(d)
		scores[i] = (scores[i] + add) * times
	}
}

func (q *listingQuery) effect(d int32) (float64, float64) {
	return factor(q.docs.lists[d] && !q.docs.ix.takesItem(d, q.items), 1-listingPenalty)
}

func (q *listingQuery) reason(int32) string {
	return "a tool named for listing, for a request that names " + q.names + " to act on"
}

// listingTool reports whether a tool's name (its Words) says it lists:
// its first word is "list".
func listingTool(nameWords []string) bool {
	return len(nameWords) > 0 && nameWords[0] == "list"
}
