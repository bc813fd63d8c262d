package search

import (
	"sort"
	"strings"
)

// Plural listing. A request that asks about several things of a kind
// ("which labels get used most", "show me all acknowledged alert groups",
// "the repos octocat has starred") asks for the tool that lists them
// (list_label, list_alert_groups, list_starred_repositories) rather than
// the one that gets one of them or acts on one (get_label,
// get_alert_group, star_repository), which hold the same words. A listing
// tool (see listingTool) whose name, past its verb, holds a word the
// request says in the plural, or a word the plural is the start of
// ("repos" of "repositories"), has its score grow by pluralListingBonus.
// So has, for a request that asks to be told (see requestIntent), a tool
// named for several of those things in the plural (show_groups beside
// show_group, get_pipelines beside get_pipeline): what it reads is
// several of them. A tool that searches (search_files, find_issues) is
// named in the plural for what it finds, not for all of them, and a
// request that searches ("find papers about diffusion models") asks for
// the things that match: neither is a listing. Nor is a tool whose name
// says it takes several (read_multiple_files, batch_get_items: see
// severalWords), named in the plural for what it is given.
const pluralListingBonus = 0.15

// takesSeveral reports whether a tool's name words say it takes several
// things (see severalWords).
func takesSeveral(nameWords []string) bool {
	for _, w := range nameWords {
		if severalWords[w] {
			return true
		}
	}
	return false
}

// searchingWords begin a request that searches for things rather than
// asks about all of them.
var searchingWords = wordSet("find search lookup seek")

type pluralListing struct{}

func (pluralListing) name() string { return "plural listing" }

func (pluralListing) newDocs(n int) signalDocs {
	return &pluralListingDocs{stems: make([][]string, n), pluralNamed: make([]bool, n)}
}

type pluralListingDocs struct {
	// stems are, until finish, the stems of a listing tool's name past
	// its verb, or of the plurals of another tool's name but one that
	// searches; finish numbers them (see listed) and drops them.
	stems [][]string
	// listed are the numbers of each document's stems, which number the
	// distinct stems in their sorted order (vocabulary): document d's are
	// listed[starts[d]:starts[d+1]]. A request's plural then matches a
	// run of numbers, those of the stems it is or begins.
	listed     []int32
	starts     []int32
	vocabulary []string
	// pluralNamed says a tool's listed stems are its name's plurals: it
	// lists only for a request that asks.
	pluralNamed []bool
}

func (s *pluralListingDocs) analyze(i int, _ *Document, a *docAnalysis) {
	if listingTool(a.nameWordList) {
		for _, w := range a.nameWordList[1:] {
			s.stems[i] = append(s.stems[i], a.stems.stem(w))
		}
		return
	}
	if len(a.nameWordList) > 0 && searchingWords[a.nameWordList[0]] || takesSeveral(a.nameWordList) {
		return
	}
	for _, w := range a.nameWordList {
		if isPlural(w) {
			s.pluralNamed[i] = true
			s.stems[i] = append(s.stems[i], a.stems.stem(w))
		}
	}
}

func (s *pluralListingDocs) finish(*Index, [][numFields][]int32) {
	seen := make(map[string]bool)
	for _, stems := range s.stems {
		for _, st := range stems {
			if !seen[st] {
				seen[st] = true
				s.vocabulary = append(s.vocabulary, st)
			}
		}
	}
	sort.Strings(s.vocabulary)
	number := make(map[string]int32, len(s.vocabulary))
	for i, st := range s.vocabulary {
		number[st] = int32(i)
	}
	s.starts = make([]int32, len(s.stems)+1)
	for d, stems := range s.stems {
		for _, st := range stems {
			s.listed = append(s.listed, number[st])
		}
		s.starts[d+1] = int32(len(s.listed))
	}
	s.stems = nil
}

func (s *pluralListingDocs) query(r *ranking) signalQuery {
	plurals := pluralsOf(r.text)
	if len(plurals) == 0 || searches(r.text) {
		return nil
	}
	q := &pluralListingQuery{docs: s, plurals: plurals, asks: requestIntent(r.text) == intentRead}
	for _, p := range plurals {
		// The stems p.stem is or, if long enough, begins: a run of the
		// sorted vocabulary.
		from := sort.SearchStrings(s.vocabulary, p.stem)
		to := from
		for to < len(s.vocabulary) && (s.vocabulary[to] == p.stem || len(p.stem) >= minPluralPrefix && strings.HasPrefix(s.vocabulary[to], p.stem)) {
			to++
		}
		if to > from {
			q.runs = append(q.runs, [2]int32{int32(from), int32(to)})
		}
	}
	return q
}

type pluralListingQuery struct {
	docs    *pluralListingDocs
	plurals []plural   // the request's plurals
	runs    [][2]int32 // the numbers of the listed stems they match, as [from, to) runs
	asks    bool       // whether the request asks to be told (see requestIntent)
}

func (q *pluralListingQuery) read() string {
	said := make([]string, len(q.plurals))
	for i, p := range q.plurals {
		said[i] = p.word
	}
	return "the request asks about several of a kind: " + strings.Join(said, ", ")
}

func (q *pluralListingQuery) apply(docs []int32, scores []float64) {
	if len(q.runs) == 0 {
		return
	}
	for i, d := range docs {
		add, times := q.effect(d)
		scores[i] = (scores[i] + add) * times
	}
}

func (q *pluralListingQuery) effect(d int32) (float64, float64) {
	return factor((q.asks || !q.docs.pluralNamed[d]) && q.lists(d), 1+pluralListingBonus)
}

// lists says whether document d lists what the request says in the
// plural: one of its listed stems is a plural's stem, or begins with it
// ("repositori" of "repos").
func (q *pluralListingQuery) lists(d int32) bool {
	for _, n := range q.docs.listed[q.docs.starts[d]:q.docs.starts[d+1]] {
		for _, run := range q.runs {
			if run[0] <= n && n < run[1] {
				return true
			}
		}
	}
	return false
}

func (q *pluralListingQuery) reason(d int32) string {
	if q.docs.pluralNamed[d] {
		return "a tool named for several of what the request asks about in the plural"
	}
	return "a tool that lists what the request asks about in the plural"
}

// searches says whether text's first verb searches (see searchingWords).
func searches(text string) bool {
	words := Words(text)
	i := firstRequestWord(words)
	return i < len(words) && searchingWords[requestVerb(words, i)]
}

// likenessWords, after a plural, ask for things like another.
var likenessWords = wordSet("like similar")

// minPluralPrefix is the shortest plural stem that matches a longer word
// it begins ("repo" of "repositori"): shorter ones begin too many.
const minPluralPrefix = 4

// A plural is a plural noun of a request, and its stem.
type plural struct{ word, stem string }

// pluralsOf returns the plural nouns of text: its words in a regular -s
// plural whose stem is the stem of the word without its -s
// ("labels", "groups", "repos"; not "news", "status" or "analysis"), but
// for the plurals that count time (see timeUnits), those that ask for
// things like another ("npm libraries like moment", "songs similar to
// this one"), which are searches, those past a place preposition (see
// beforePlace), which say where, and those in quoted text, which is what
// to act on ("reply 'Thanks, looks good'"), or in a path or URL, which
// names one thing ("/templates/company.pptx").
func pluralsOf(text string) []plural {
	var out []plural
	text, _ = splitQuoted(text)
	text, _, _, _ = splitLocators(text)
	words := Words(beforePlace(text))
	for i, w := range words {
		if timeUnits[w] {
			continue
		}
		if i+1 < len(words) && likenessWords[words[i+1]] {
			continue
		}
		if !isPlural(w) {
			continue
		}
		out = append(out, plural{w, stemWord(w)})
	}
	return out
}

// beforePlace is text up to its first place preposition other than "of"
// (see placePrepositions): what follows says where, not what the request
// asks about ("label keys in Pyroscope profiles").
func beforePlace(text string) string {
	start := -1 // of the current space-separated field
	for i := 0; i <= len(text); i++ {
		if i < len(text) && !isSpaceByte(text[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start > 0 {
			w := strings.ToLower(strings.Trim(text[start:i], ",.;:!?\"'()"))
			if w != "of" && placePrepositions[w] {
				return text[:start]
			}
		}
		start = -1
	}
	return text
}

// isPlural says whether a word is a regular plural: one whose stem is
// the stem of the word without its -s ("labels", "repos"; not "news",
// "status" or "analysis"), or without the -es after a hissing sound
// ("businesses", "boxes", "matches", "wishes").
func isPlural(w string) bool {
	if len(w) < 4 || w[len(w)-1] != 's' || isStopWord(w) {
		return false
	}
	if base, ok := strings.CutSuffix(w, "es"); ok && len(base) >= 3 && hissingEnd(base) && stemWord(w) == stemWord(base) {
		return true
	}
	if strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is") {
		return false
	}
	return stemWord(w) == stemWord(w[:len(w)-1])
}

// hissingEnd says whether a word ends in a sound English adds -es after
// to make a plural: s, x, z, ch or sh.
func hissingEnd(w string) bool {
	if w == "" {
		return false
	}
	switch w[len(w)-1] {
	case 's', 'x', 'z':
		return true
	case 'h':
		return len(w) > 1 && (w[len(w)-2] == 'c' || w[len(w)-2] == 's')
	}
	return false
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
