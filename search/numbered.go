package search

import (
	"regexp"
	"strings"
)

// Numbered items. A request that names one thing by its number ("Hacker
// News story 38812345", "comment number 4", "Met object 436535", "slide
// 4") asks for a tool about that one thing: getStory, not getStories,
// though stemming makes their names the same words. A tool whose name
// holds the word only in another form (a plural: "stories", "objects",
// "slides") keeps 1-numberedPenalty of its score; one whose name holds
// the word as written, or none of it, ranks as before. So does a tool
// that makes a new one (add_slide, create_slide_from_template; not
// add_issue_comment, which makes a comment: see madeThing): "add a blue
// rectangle to slide 2" is about a slide that is there, unless the
// request also speaks of the word without a number ("add a slide after
// slide 3"). A number that begins a date ("meeting notes 2024-05-02")
// names no item, nor does one a unit of time or a word of a period
// follows ("a reminder 30 minutes before", "chart 2024 monthly revenue").
// How it was chosen: docs/search.md, "The tuned values".
const numberedPenalty = 0.4

// numberedRE finds a word followed by a number or a code with a digit in
// it, with "#", "no.", "number", "ID" or "with ID" between or not.
var numberedRE = regexp.MustCompile(`\b([a-z]+)\s+(?:(?:with\s+)?(?:the\s+)?(?:id|number|no\.?)\s*:?\s*)?#?([a-z0-9-]*\d[a-z0-9-]*)\b`)

// itemCode matches a code that names an item as its number does: letters
// and digits mixed ("7a1b3c", "RE77ab", "ORD-8812", "0xabc12"), four or
// more characters; unitAfterNumber matches a quantity with its unit
// ("16px", "5pm", "1080p", "3rd"), which is no code.
var (
	itemCode        = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)
	unitAfterNumber = regexp.MustCompile(`^\d+[a-z]{1,3}$`)
)

// countingWords come before a number that counts rather than names: "the
// top 10 stories", "the last 5 commits", "page 2 of the results".
var countingWords = wordSet(`top last first next past latest recent previous
	only about over under around nearly few page pages`)

// numberedItems are the words of a query that name one item by its
// number, lower-case as written.
func numberedItems(text string) []string { return namedItems(text, false) }

// codedItems are the words of a query that name one item by its number
// or by a code of letters and digits ("campaign folder 7a1b3c", "order
// ORD-8812"), lower-case as written: a request that names one item is no
// request to list them (see listing). The numbered item signal reads
// numbers only: the word before a code is as often the kind of a thing
// the code names ("pod worker-5c8d"), which tools about it are named for
// in the plural (pods_log).
func codedItems(text string) []string { return namedItems(text, true) }

// namedItems are numberedItems, and with codes codedItems.
func namedItems(text string, codes bool) []string {
	if !strings.ContainsAny(text, "0123456789") {
		return nil
	}
	var items []string
	lower := strings.ToLower(text)
	for _, m := range numberedRE.FindAllStringSubmatchIndex(lower, -1) {
		w, code, rest := lower[m[2]:m[3]], lower[m[4]:m[5]], lower[m[5]:]
		if n := leadingDigits(code); n > 0 && n < len(code) && code[n] == '-' {
			// A number before a dash: a date or a range ("4-5").
			code, rest = code[:n], code[n:]+rest
		}
		if !isDigits(code) && (!codes || len(code) < 4 || !itemCode.MatchString(code) || unitAfterNumber.MatchString(code)) {
			continue
		}
		if countingWords[w] || isStopWord(w) || restOfDate.MatchString(rest) || measuredBy(rest) {
			continue
		}
		items = append(items, w)
	}
	return items
}

// measuredBy reports whether the text after a number begins with a unit
// of time or a word of a period: such a number measures ("a reminder 30
// minutes before", "running 10 minutes late") or dates ("2024 monthly
// revenue", "2023 annual report") and names no item.
func measuredBy(rest string) bool {
	m := unitRE.FindStringSubmatch(rest)
	return m != nil && unitWords[m[1]]
}

// unitRE finds the word right after a number, a hyphen or space between
// or not ("30 minutes", "5-minute").
var unitRE = regexp.MustCompile(`^[\s-]*([a-z]+)\b`)

// unitWords are the units of time, singular and plural, in full and as
// abbreviated, and the words of a period ("monthly", "annual").
var unitWords = wordSet(`second seconds sec secs minute minutes min mins
	hour hours hr hrs day days week weeks month months year years
	hourly daily weekly monthly quarterly yearly annual`)

// restOfDate matches what follows the first number of a date written with
// dashes ("2024-05-02", "02-05-2024"): such a number dates a thing
// ("meeting notes 2024-05-02") and names none.
var restOfDate = regexp.MustCompile(`^-\d{1,2}-\d{2,4}\b`)

type numbered struct{}

func (numbered) name() string { return "numbered item" }

func (numbered) newDocs(n int) signalDocs { return &numberedDocs{makes: make([]bool, n)} }

type numberedDocs struct {
	ix    *Index
	makes []bool // whether each document makes a new thing (see makesNew)
}

func (s *numberedDocs) analyze(i int, _ *Document, a *docAnalysis) {
	s.makes[i] = makesNew(a.nameWordList)
}

func (s *numberedDocs) finish(ix *Index, _ [][numFields][]int32) { s.ix = ix }

func (s *numberedDocs) query(r *ranking) signalQuery {
	items := r.numberedItems()
	if len(items) == 0 {
		return nil
	}
	other := s.otherForms(r.text, items)
	if len(other) == 0 {
		return nil
	}
	return &numberedQuery{items: items, other: other}
}

// otherForms are the documents whose names hold a numbered item of text
// (items, see numberedItems) only in another form of the word, or that
// make a new one when text speaks of it only by number; by document, the
// item.
func (s *numberedDocs) otherForms(text string, items []string) map[int32]string {
	ix := s.ix
	out := make(map[int32]string)
	words := Words(text)
	for _, w := range items {
		id, ok := ix.vocab[ix.stems.stem(w)]
		if !ok {
			continue
		}
		// Whether the request also speaks of a new one ("add a slide
		// after slide 3").
		unnumbered := countOf(words, w) > countOf(items, w)
		for _, p := range ix.postings[id] {
			if _, done := out[p.doc]; p.tf >= 0 || done {
				continue
			}
			name := ix.docNameWords[p.doc]
			if !hasWord(name, w) || (!unnumbered && s.makes[p.doc] && ix.stems.stem(madeThing(name)) == ix.stems.stem(w)) {
				out[p.doc] = w
			}
		}
	}
	return out
}

type numberedQuery struct {
	items []string
	other map[int32]string
}

func (q *numberedQuery) read() string { return "the request names by number " + quoteAll(q.items) }

func (q *numberedQuery) apply(docs []int32, scores []float64) {
	for i, d := range docs {
		add, times := q.effect(d)
		scores[i] = (scores[i] + add) * times
	}
}

func (q *numberedQuery) effect(d int32) (float64, float64) {
	_, ok := q.other[d]
	return factor(ok, 1-numberedPenalty)
}

func (q *numberedQuery) reason(d int32) string {
	return "its name holds " + q.other[d] + " only in another form, or it makes a new one: the request names one by its number"
}

func countOf(words []string, w string) int {
	n := 0
	for _, x := range words {
		if x == w {
			n++
		}
	}
	return n
}

// makesNew reports whether a name's first verb (of its Words) makes a new
// thing: add_slide, create_slide_from_template, insert_blank_slide.
func makesNew(nameWords []string) bool {
	for _, w := range nameWords {
		if makingWords[w] {
			return true
		}
		if readingWords[w] || changingWords[w] {
			return false
		}
	}
	return false
}

var makingWords = wordSet("create add insert new make generate build")

// madeThing is what a name (its words, each followed by a space) that
// makes a new thing makes: the last word of the words after its verb of
// making, before any preposition. add_slide and insert_blank_slide make a
// slide; add_issue_comment makes a comment, on an issue that is there;
// create_slide_from_template makes a slide. "" for a name that makes
// nothing.
func madeThing(name string) string {
	words := strings.Fields(name)
	made := ""
	for i, w := range words {
		if !makingWords[w] {
			continue
		}
		for _, o := range words[i+1:] {
			if madeThingEnds[o] {
				break
			}
			made = o
		}
		break
	}
	return made
}

// madeThingEnds end the words for what a name makes: "add_chart_to_slide"
// makes a chart.
var madeThingEnds = wordSet("to from in on into for with of by at as")

// hasWord reports whether words, each followed by a space, holds w.
func hasWord(words, w string) bool {
	for rest := words; ; {
		i := strings.Index(rest, w)
		if i < 0 {
			return false
		}
		if (i == 0 || rest[i-1] == ' ') && i+len(w) < len(rest) && rest[i+len(w)] == ' ' {
			return true
		}
		rest = rest[i+1:]
	}
}

// leadingDigits is the number of digits s begins with.
func leadingDigits(s string) int {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	return n
}
