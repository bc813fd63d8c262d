package search

import "regexp"

// Counted requests. A request that counts what it wants ("the last 10
// commits", "the first 20 comments on story 38912345", "the 5 most
// recent posts") asks for a tool that takes how many to return: git_log,
// whose max_count says so, more than git_show, which shows one commit;
// getComments, which takes a limit, more than getStoryWithComments.
// Such a tool's score grows by countParameterBonus.
// How it was chosen: docs/search.md, "The tuned values".
const countParameterBonus = 0.15

// countedRE matches a count of things: a counting word and a number
// ("top 5", "last ten", "10 most recent"), then a plural, maybe after
// one other word ("the last 10 git commits").
var countedRE = regexp.MustCompile(`(?i)\b(?:(?:top|last|first|next|latest|newest|oldest|recent)\s+` + countNumber +
	`|` + countNumber + `\s+(?:most\s+recent|latest|newest|recent|oldest))\s+(?:[a-z]+\s+)?([a-z]+s)\b`)

// countNumber matches a number, in digits or in a word.
const countNumber = `(?:\d{1,4}|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty|thirty|fifty|hundred)`

// timeUnits are plurals that count a stretch of time, not things: "the
// past 30 days" asks for history (see valueKinds), not a number of items.
var timeUnits = wordSet("seconds minutes hours days weeks months years quarters decades")

// countsItems reports whether text asks for a number of things.
func countsItems(text string) bool {
	for _, m := range countedRE.FindAllStringSubmatch(text, -1) {
		if !timeUnits[m[1]] {
			return true
		}
	}
	return false
}

// countParameterWords are the words of parameter names that say how many
// to return: limit, max_count, top_k, num_results. "max" alone is not
// one, since it also bounds sizes (max_width, max_length).
var countParameterWords = []string{"limit", "count", "top", "k", "n", "num"}

type counted struct{}

func (counted) name() string { return "counted" }

func (counted) newDocs(int) signalDocs { return &countedDocs{} }

type countedDocs struct{ ix *Index }

func (*countedDocs) analyze(int, *Document, *docAnalysis) {}

func (s *countedDocs) finish(ix *Index, _ [][numFields][]int32) { s.ix = ix }

func (s *countedDocs) query(r *ranking) signalQuery {
	if !countsItems(r.text) {
		return nil
	}
	return &countedQuery{ix: s.ix}
}

type countedQuery struct{ ix *Index }

func (*countedQuery) read() string { return "the request counts what it wants" }

func (q *countedQuery) apply(docs []int32, scores []float64) {
	for i, d := range docs {
		add, times := q.effect(d)
		scores[i] = (scores[i] + add) * times
	}
}

func (q *countedQuery) effect(d int32) (float64, float64) {
	return factor(q.ix.takesCount(d), 1+countParameterBonus)
}

func (*countedQuery) reason(int32) string { return "it takes how many to return" }

// takesCount reports whether document d has a parameter that says how
// many to return.
func (ix *Index) takesCount(d int32) bool {
	for _, w := range countParameterWords {
		if hasWord(ix.docParamWords[d], w) {
			return true
		}
	}
	return false
}
