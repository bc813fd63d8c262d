package search

import (
	"regexp"
	"strings"
)

// Several items. A request that names several things to act on at once
// ("offers for SKUs TSHIRT-RED-M, TSHIRT-BLU-L and MUG-01", "move these
// five Drive files", "search for Acme, Globex and Initech") asks for the
// tool that takes several of them (ebay_get_offers_by_skus, batch_move,
// batch_search_records) rather than the one that takes one, which holds
// the same words. A tool takes several when its name says so (see
// severalWords), or holds in the plural the word for the things the
// request names ("skus" of "SKUs TSHIRT-RED-M, …"), but for a tool that
// lists or searches, named in the plural for what it gives (list-images).
// Its score grows by severalItemsBonus.
const severalItemsBonus = 0.15

// severalWords, in a tool's name, say it takes several things at once.
var severalWords = wordSet("batch bulk multiple many several")

// enumeratedRE matches a list of two or more items ("A, B and C", "A and
// B"): each one word, which a digit or a capital marks as a name or an
// identifier rather than a common word ("deals, contacts and leads" are
// kinds of things, not things). The word before the list, if any, is
// the kind.
var enumeratedRE = regexp.MustCompile(`(?:\b([A-Za-z]+)\s+)?` + enumeratedItem + `(?:\s*,\s*` + enumeratedItem + `)*\s*,?\s+and\s+` + enumeratedItem)

// enumeratedItem is one item of a list: a word with a digit or a capital
// letter, or a quoted span.
const enumeratedItem = `(?:[A-Za-z0-9_\-.#]*[0-9A-Z][A-Za-z0-9_\-.#]*|'[^']+'|"[^"]+")`

// demonstrativeCountRE matches "these five files", "those 30 old draft
// files": a counted set the request points at. The last word is the
// kind.
var demonstrativeCountRE = regexp.MustCompile(`(?i)\b(?:these|those|the following)\s+` + countNumber + `\s+(?:[a-z]+\s+){0,3}?([a-z]+s)\b`)

// severalItems returns the kinds of things a request names several of,
// as it writes them in the plural ("skus" of "SKUs TSHIRT-RED-M,
// TSHIRT-BLU-L and MUG-01"), and whether it names several at all.
func severalItems(text string) (kinds []string, several bool) {
	// Files are read apart (see splitLocators: two files or more are
	// "multiple").
	text, _, _, _ = splitLocators(text)
	for _, m := range enumeratedRE.FindAllStringSubmatch(text, -1) {
		several = true
		if w := strings.ToLower(m[1]); endsAsPlural(w) {
			kinds = append(kinds, w)
		}
	}
	for _, m := range demonstrativeCountRE.FindAllStringSubmatch(text, -1) {
		if w := strings.ToLower(m[1]); !timeUnits[w] && endsAsPlural(w) {
			several = true
			kinds = append(kinds, w)
		}
	}
	return kinds, several
}

type severalItemsSignal struct{}

func (severalItemsSignal) name() string { return "several items" }

func (severalItemsSignal) newDocs(n int) signalDocs {
	return &severalItemsDocs{batch: make([]bool, n), plurals: make([][]string, n)}
}

type severalItemsDocs struct {
	batch   []bool     // whether a tool's name says it takes several (see severalWords)
	plurals [][]string // the words of a tool's name in the plural (see endsAsPlural)
}

func (s *severalItemsDocs) analyze(i int, _ *Document, a *docAnalysis) {
	// A tool that lists or searches is named in the plural for what it
	// gives, not for what it takes.
	lists := listingTool(a.nameWordList) || len(a.nameWordList) > 0 && searchingWords[a.nameWordList[0]]
	for _, w := range a.nameWordList {
		switch {
		case severalWords[w]:
			s.batch[i] = true
		case endsAsPlural(w) && !lists:
			s.plurals[i] = append(s.plurals[i], w)
		}
	}
}

func (s *severalItemsDocs) query(r *ranking) signalQuery {
	kinds, several := severalItems(r.text)
	if !several {
		return nil
	}
	return &severalItemsQuery{docs: s, kinds: kinds}
}

type severalItemsQuery struct {
	docs  *severalItemsDocs
	kinds []string // the kinds of things the request names several of, in the plural
}

func (q *severalItemsQuery) read() string {
	if len(q.kinds) == 0 {
		return "the request names several things to act on"
	}
	return "the request names several things to act on: " + strings.Join(q.kinds, ", ")
}

func (q *severalItemsQuery) apply(docs []int32, scores []float64) {
	for i, d := range docs {
		add, times := q.effect(d)
		scores[i] = (scores[i] + add) * times
	}
}

func (q *severalItemsQuery) effect(d int32) (float64, float64) {
	return factor(q.takesSeveral(d), 1+severalItemsBonus)
}

// takesSeveral says whether document d takes several of what the request
// names.
func (q *severalItemsQuery) takesSeveral(d int32) bool {
	if q.docs.batch[d] {
		return true
	}
	for _, p := range q.docs.plurals[d] {
		for _, k := range q.kinds {
			if p == k {
				return true
			}
		}
	}
	return false
}

func (q *severalItemsQuery) reason(d int32) string {
	if q.docs.batch[d] {
		return "a tool named for taking several things at once"
	}
	return "a tool named in the plural for what the request names several of"
}

// endsAsPlural says whether a word may be a plural: it ends in an s, but
// not in -ss ("class"). The stemmer keeps the s of a lower-case acronym
// ("skus", "ids"), so what the request and a tool's name say in the
// plural is compared as written, and a word in -us or -is ("status",
// "analysis") counts only where both say it.
func endsAsPlural(w string) bool {
	return len(w) >= 3 && w[len(w)-1] == 's' && !strings.HasSuffix(w, "ss") && !isStopWord(w)
}
