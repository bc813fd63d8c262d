package search

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Multi-step requests. A request like "read the sales sheet, plot it as a
// bar chart and save the chart to /tmp/sales.png" wants a tool for each
// step, but ranked as one text the step with the rarest words takes the
// first places. Ranking each step on its own as well, and merging the
// rankings, lets every step's best tool into the first results.

const (
	// maxSteps bounds the steps ranked on their own (each costs a search).
	maxSteps = 4
	// stepFusionDepth is how many hits of each ranking the merge reads;
	// past it the whole text's ranking goes on alone.
	stepFusionDepth = 20
	// stepRankOffset is reciprocal rank fusion's k: a hit at rank r of a
	// ranking scores 1/(stepRankOffset+r). Small, so that a step's first
	// hit counts for much more than its tenth.
	stepRankOffset = 3
)

// stepSeparators end a step: sentence and clause punctuation followed by a
// space, and the words that chain steps ("..., then ...", "... and also
// ...").
var stepSeparators = regexp.MustCompile(`(?i)(?:[,;.!?]+\s+|\s+)(?:and then|then|and also|also|after that|afterwards|finally)\s+|[,;.!?]+\s+`)

// splitSteps cuts a request into its steps: the parts between separators
// that hold at least two words, at most maxSteps of them (later parts join
// the last). A part that names no action (see namesAction) goes on the
// step before it: "map my route: Forbidden City, then Temple of Heaven"
// is one step with a list, "how scared is the market, the fear and greed
// index" one with its subject said again. Fewer than two steps means a
// one-step request.
func splitSteps(text string) []string {
	if len(text) < 16 {
		return nil
	}
	var steps []string
	for _, part := range splitOutsideQuotes(text) {
		if len(strings.Fields(part)) < 2 {
			continue
		}
		if len(steps) > 0 && !namesAction(part) {
			steps[len(steps)-1] += " " + part
			continue
		}
		if len(steps) == maxSteps {
			steps[maxSteps-1] += " " + part
			continue
		}
		steps = append(steps, part)
	}
	if len(steps) < 2 {
		return nil
	}
	return steps
}

// splitOutsideQuotes cuts text at its step separators (see
// stepSeparators), but for those inside quoted text (see quotedSpan):
// "Reply 'Thanks, looks good' to Lisa's post" is one step.
func splitOutsideQuotes(text string) []string {
	seps := stepSeparators.FindAllStringIndex(text, -1)
	if len(seps) == 0 {
		return []string{text}
	}
	var quoted [][]int
	if strings.ContainsAny(text, "'\"‘“") {
		quoted = quotedSpan.FindAllStringIndex(text, -1)
	}
	var parts []string
	start := 0
	for _, sep := range seps {
		inside := false
		for _, q := range quoted {
			if sep[0] > q[0] && sep[0] < q[1] {
				inside = true
				break
			}
		}
		if !inside {
			part := text[start:sep[0]]
			if text[sep[0]] == '?' {
				// A question keeps its mark: "Any notes on
				// document 774? Show them all" asks twice.
				part += "?"
			}
			parts = append(parts, part)
			start = sep[1]
		}
	}
	return append(parts, text[start:])
}

// namesAction reports whether a part of a request holds a verb that says
// what to do: one of reading or of change (see intent.go), inflected or
// not, a question word, or a light verb ("put", "take"), but not one it
// negates ("but don't send it yet", see withoutNegations), nor one of an
// idiom ("3302 and 3307 in one go" names none; see saidPlainly). The words
// of an identifier (usp_UpdateStock, getOrders) name a thing, not an action:
// "usp_GetOrders, usp_UpdateStock and usp_CloseInvoice" is a list.
func namesAction(part string) bool {
	words := Words(saidPlainly(withoutIdentifiers(withoutNegations(part))))
	for i, w := range words {
		stem := stemWord(w)
		if askingWords[w] || changes(w) || readingWords[w] || changingStems[stem] || readingStems[stem] || lightVerbs[stem] {
			return true
		}
		if i > 0 && objectPronouns[w] {
			// "cross-reference it with ...": what comes before "it" acts.
			return true
		}
	}
	return false
}

var objectPronouns = wordSet("it them")

// searchSteps ranks the whole text and each step, and merges the rankings
// by reciprocal rank fusion, each counted alike. The whole text's best hit
// stays first: it is what the request is most about. Past
// stepFusionDepth the whole text's ranking goes on alone. A step's words
// are among the whole text's, so its hits match the whole text too, and
// total is the whole text's. Each step is ranked for what it asks (see
// requestIntent and requestEffect); the whole text, whose steps may both
// read and change, for neither, but for asking or acting when every step
// asks the same (see stepsIntent).
//
// The rankings are independent, so they run at once, one goroutine each:
// a request of three steps costs about two single searches' time on two
// cores rather than four.
func (ix *Index) searchSteps(req Request, steps []string) ([]Hit, int) {
	want := req.Offset + req.Limit
	stepHits := make([][]Hit, len(steps))
	var wg sync.WaitGroup
	for i, step := range steps {
		wg.Go(func() {
			stepHits[i], _ = ix.rank(Request{Text: step, Required: req.Required, Allow: req.Allow, Limit: stepFusionDepth, Explain: req.Explain}, false)
		})
	}
	whole, total := ix.rank(Request{Text: req.Text, Required: req.Required, Allow: req.Allow, Limit: want + stepFusionDepth, Explain: req.Explain}, true)
	wg.Wait()
	if len(whole) == 0 {
		return nil, total
	}
	fused := make(map[int]float64)
	hitOf := make(map[int]Hit)
	// why says, by document, the places that made its fused score.
	why := make(map[int][]string)
	for r, h := range whole[:min(len(whole), stepFusionDepth)] {
		fused[h.Doc] += 1 / float64(stepRankOffset+r+1)
		hitOf[h.Doc] = h
		if req.Explain {
			why[h.Doc] = append(why[h.Doc], fmt.Sprintf("place %d for the whole request", r+1))
		}
	}
	for i, hits := range stepHits {
		for r, h := range hits {
			fused[h.Doc] += 1 / float64(stepRankOffset+r+1)
			if _, ok := hitOf[h.Doc]; !ok {
				hitOf[h.Doc] = h
			}
			if req.Explain {
				why[h.Doc] = append(why[h.Doc], fmt.Sprintf("place %d for step %q", r+1, steps[i]))
			}
		}
	}
	head := make([]Hit, 0, len(fused))
	for doc := range fused {
		if doc != whole[0].Doc {
			head = append(head, hitOf[doc])
		}
	}
	sort.Slice(head, func(i, j int) bool {
		if fi, fj := fused[head[i].Doc], fused[head[j].Doc]; fi != fj {
			return fi > fj
		}
		return head[i].Doc < head[j].Doc
	})
	merged := append([]Hit{whole[0]}, head[:min(len(head), stepFusionDepth-1)]...)
	placed := make(map[int]bool, len(merged))
	for _, h := range merged {
		placed[h.Doc] = true
	}
	fusedPlaces := len(merged)
	for _, h := range whole {
		if len(merged) >= want {
			break
		}
		if !placed[h.Doc] {
			merged = append(merged, h)
		}
	}
	if req.Explain {
		explainSteps(merged, whole, fusedPlaces, fused, why)
	}
	if req.Offset >= len(merged) {
		return nil, total
	}
	return merged[req.Offset:min(len(merged), want)], total
}

// explainSteps gives each merged hit a Move saying how the fusion of the
// whole request's ranking and its steps' placed it.
func explainSteps(merged, whole []Hit, fusedPlaces int, fused map[int]float64, why map[int][]string) {
	wholePlace := placesOf(whole, 0)
	for i, h := range merged {
		m := Move{Rerank: "steps", From: wholePlace[h.Doc], To: i + 1, Key: fused[h.Doc]}
		switch {
		case i == 0:
			m.Reason = "the whole request's first hit stays first"
		case i < fusedPlaces:
			m.Reason = fmt.Sprintf("places 2 to %d go by the sum of 1/(%d+place) over the rankings of the whole request and of each step that hold it: %s",
				fusedPlaces, stepRankOffset, strings.Join(why[h.Doc], ", "))
		default:
			m.Key = h.Score
			m.Reason = fmt.Sprintf("past place %d the whole request's ranking goes on, by score", fusedPlaces)
		}
		h.Explanation.Moves = append(h.Explanation.Moves, m)
	}
}
