package search

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// terms turns text into index terms: Words, without English stop words,
// stemmed (Snowball English), plus a bigram term for each pair of adjacent
// ideographs, so that "八字" matches as a word and not only as 八 and 字.
func terms(text string, stems *stemCache) []string {
	return wordTerms(Words(text), stems)
}

// wordTerms is terms of text's Words.
func wordTerms(words []string, stems *stemCache) []string {
	out := make([]string, 0, len(words))
	prevIdeo := ""
	for _, w := range words {
		if len(w) > 0 && w[0] >= utf8.RuneSelf && isIdeographicWord(w) {
			out = append(out, w)
			if prevIdeo != "" {
				out = append(out, prevIdeo+w)
			}
			prevIdeo = w
			continue
		}
		prevIdeo = ""
		if e := stems.entry(w); !e.stop {
			out = append(out, e.stem)
		}
	}
	return out
}

// brandTerms are the whole words, stemmed, of the two-part camelCase
// words in text ("YouTube", "GitHub", "iPhone"): Words splits them, as it
// must for identifiers, but people type them whole ("youtube"), and a part
// may be a stop word ("you"). Documents' text indexes them beside the
// parts.
func brandTerms(text string, stems *stemCache) []string {
	var out []string
	eachBrandWord(text, func(_, _ int, first, second string) {
		out = append(out, stems.stem(first+second))
	})
	return out
}

// joinBrandWords writes the two-part camelCase words of a query whole
// ("GitHub" as "github") where the index holds them whole (indexed says
// which stems it does), so that the query matches the brand rather than
// its parts, and returns the parts apart: they still count, for less
// ("PowerPoint" is also "power point"). Other camelCase words stay as
// they are, to be split: someone typing getUserInfo means its parts.
func joinBrandWords(text string, stems *stemCache, indexed func(stem string) bool) (joined, parts string) {
	var b, p strings.Builder
	copied := 0
	eachBrandWord(text, func(start, end int, first, second string) {
		if indexed(stems.stem(first + second)) {
			b.WriteString(text[copied:start])
			b.WriteString(first + second)
			copied = end
			p.WriteString(first + " " + second + " ")
		}
	})
	if copied == 0 {
		return text, ""
	}
	b.WriteString(text[copied:])
	return b.String(), p.String()
}

// eachBrandWord calls f with the bounds and the two lower-cased parts of
// each two-part camelCase word of text (see isBrandWord), in order.
func eachBrandWord(text string, f func(start, end int, first, second string)) {
	start := 0
	for i := 0; i <= len(text); i++ {
		if i < len(text) && isASCIIAlnum(text[i]) {
			continue
		}
		// text[start:i] is a run of ASCII letters and digits.
		if tok := text[start:i]; len(tok) >= 4 && len(tok) <= 32 && isBrandWord(tok) {
			if parts := asciiWords(tok); len(parts) == 2 {
				f(start, i, parts[0], parts[1])
			}
		}
		start = i + 1
	}
}

// joinedWords are the compounds of a query's adjacent words that the
// index holds as one word, stemmed ("the paper" gives "thepap" for a tool
// get-thepaper-trending, "site map" gives "sitemap"): tool names run
// words together that requests write apart. It is the reverse of
// matching a query word that is not indexed by the two it is made of (see
// Index.expand).
func (ix *Index) joinedWords(text string) string {
	words := Words(text)
	var out []string
	for i := 0; i+1 < len(words); i++ {
		a, b := words[i], words[i+1]
		// A stem keeps the start of its word, so a compound no term
		// begins with is not indexed: most pairs end here, unstemmed.
		if !isASCIIWord(a) || !isASCIIWord(b) || !ix.hasTermWithPrefix(a+b[:1]) {
			continue
		}
		if t := ix.stems.stem(a + b); ix.indexed(t) {
			out = append(out, t)
		}
	}
	// A name of three capitalised words is also written with the first
	// two as initials: "New York Times" as "nytimes".
	for _, m := range threeWordName.FindAllStringSubmatch(text, -1) {
		if t := ix.stems.stem(strings.ToLower(m[1] + m[2] + m[3])); ix.indexed(t) {
			out = append(out, t)
		}
	}
	return strings.Join(out, " ")
}

// threeWordName matches three capitalised words in a row, capturing the
// first two's initials and the third.
var threeWordName = regexp.MustCompile(`\b([A-Z])[a-z]+\s+([A-Z])[a-z]+\s+([A-Z][a-z]+)\b`)

// isBrandWord reports whether tok is letters only, with a lower case
// letter and an upper case one after its first letter ("YouTube",
// "iPhone", "HTMLParser"): a word camelCase splitting cuts.
func isBrandWord(tok string) bool {
	lower, innerUpper := false, false
	for i := 0; i < len(tok); i++ {
		switch c := tok[i]; {
		case 'a' <= c && c <= 'z':
			lower = true
		case 'A' <= c && c <= 'Z':
			innerUpper = innerUpper || i > 0
		default:
			return false
		}
	}
	return lower && innerUpper
}

func isASCIIAlnum(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

func isIdeographicWord(w string) bool {
	r, size := utf8.DecodeRuneInString(w)
	return size == len(w) && isIdeographic(r)
}

// stemCache memoises stems. Indexing fills one per goroutine and merges
// them (see analyzeDocs); searches only read it and stem words it lacks
// on the fly, so it is safe for concurrent searches once built.
type stemCache struct {
	m        map[string]stemEntry
	readOnly bool
}

// stemEntry is what the memo knows of a word: its stem, and whether it
// is a stop word (see isStopWord).
type stemEntry struct {
	stem string
	stop bool
}

func newStemCache() *stemCache { return &stemCache{m: make(map[string]stemEntry)} }

func (c *stemCache) stem(w string) string { return c.entry(w).stem }

// entry looks w up, working it out and remembering it (unless the memo
// is read-only) the first time.
func (c *stemCache) entry(w string) stemEntry {
	if e, ok := c.m[w]; ok {
		return e
	}
	e := stemEntry{stem: stemWord(w), stop: isStopWord(w)}
	if !c.readOnly {
		// w may be a slice of a document's text (see asciiWords), which
		// the index must not keep alive: it keeps copies.
		same := e.stem == w
		w = strings.Clone(w)
		if same {
			e.stem = w
		}
		c.m[w] = e
	}
	return e
}

// stemWord stems English words; digits, mixed tokens and other scripts
// stay as they are.
func stemWord(w string) string {
	if len(w) <= 3 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return w
		}
	}
	return keepShortDouble(w, english.Stem(w, true))
}

// keepShortDouble mends Snowball's stem of a short word whose own last
// letter is doubled: it undoubles what "-ed" and "-ing" leave, which is
// right for "hopping" (hop) but makes "added" and "adding" "ad", apart
// from "add". A stem of two letters that the word spells with its last
// letter doubled keeps the double: such words are nearly all words of
// three letters ending in a double (add, err, ebb, egg), while the verbs
// that double a letter before a suffix (hop, stop, plan) stem to three
// letters or more.
func keepShortDouble(w, stem string) string {
	if len(stem) == 2 && len(w) > 3 && w[:2] == stem && w[2] == stem[1] {
		return w[:3]
	}
	return stem
}

// requestWords are the words people wrap a request in ("please help me
// ..., tell me ...") rather than words about what they want done, as
// stems. Queries drop them; documents keep them, so a tool named
// give_feedback is still found by "give feedback" through "feedback".
var requestWords = map[string]bool{}

func init() {
	for _, w := range []string{
		"please", "help", "want", "need", "tell", "give", "let", "know", "like",
		"would", "could", "also", "thank", "thanks", "hi", "hello", "hey", "kindly",
		"able", "way", "use", "using",
	} {
		requestWords[stemWord(w)] = true
	}
}

// lightVerbs are verbs that in a request carry little of the job, which
// lies in their object or in the idiom they make ("go to the page", "put
// the chart on slide 2", "take a screenshot"), as stems. A tool whose name
// holds one (go_back, http_put) is no likelier for that, so queries weigh
// them lightVerbWeight. Verbs that do name an operation in software
// (get, show, make) are not among them: measured, discounting those lost
// more than it gained.
var lightVerbs = map[string]bool{}

// lightVerbWeight weighs a light verb of a query (see lightVerbs).
const lightVerbWeight = 0.5

func init() {
	for _, w := range []string{"go", "put", "take", "have", "do", "keep", "bring"} {
		lightVerbs[stemWord(w)] = true
	}
}

// framingVerbs, first in a request, frame it: "show me the last 10
// commits" asks to see the commits, and a tool named for showing
// (git_show) is no likelier for that, so queries weigh the verb
// framingVerbWeight there. Measured: "get", "check", "list" and "find"
// name the job often enough that weighing them less lost first places.
var framingVerbs = wordSet("show display")

// framingVerbWeight weighs a request's framing verb (see framingVerbs).
const framingVerbWeight = 0.3

// framingVerb returns the stem of the framing verb text begins with, past
// its leading words ("can you show me"), or "" if it begins otherwise.
func framingVerb(text string, stems *stemCache) string {
	words := Words(text)
	if i := firstRequestWord(words); i < len(words) && framingVerbs[words[i]] {
		return stems.stem(words[i])
	}
	return ""
}

// clauseVerbs returns the stems of the verbs of text's contact clauses:
// a clause after a noun with its own subject and no "that" ("the page I
// have open", "the audio track I just loaded", "the response I'm waiting
// on") says which thing, and its verb is no request for a tool that does
// it. The verb is the first word after the subject that is neither a stop
// word nor an adverb.
func clauseVerbs(text string, stems *stemCache) map[string]bool {
	var out map[string]bool
	for _, part := range clauseBreaks.Split(text, -1) {
		out = appendClauseVerbs(out, Words(part), stems)
	}
	return out
}

// clauseBreaks end a clause: punctuation but the apostrophe.
var clauseBreaks = regexp.MustCompile(`[,;:.!?()]+`)

// appendClauseVerbs adds to out the stems of the verbs of the contact
// clauses in one clause's words (see clauseVerbs), making out if need be.
func appendClauseVerbs(out map[string]bool, words []string, stems *stemCache) map[string]bool {
	first := firstRequestWord(words)
	for j := 1; j < len(words); j++ {
		prev := words[j-1]
		if !clauseSubjects[words[j]] || isStopWord(prev) || askingWords[prev] || j-1 == first {
			continue
		}
		for k := j + 1; k < len(words); k++ {
			w := words[k]
			if isStopWord(w) || clauseAdverbs[w] || strings.HasSuffix(w, "ly") {
				continue
			}
			if out == nil {
				out = make(map[string]bool)
			}
			out[stems.stem(w)] = true
			break
		}
	}
	return out
}

// clauseSubjects begin a contact clause after a noun; clauseAdverbs may
// come between the subject and its verb, as may stop words and words in
// -ly ("I currently have open"), and what Words leaves of "I've", "I'm".
var (
	clauseSubjects = wordSet("i you we they")
	clauseAdverbs  = wordSet("already still just ve ll re m d")
)

// openAsState reports whether text says "open" of a state, after a word
// that makes it one ("my currently open presentation", "which
// presentations do I have open", "the open page") rather than asking to
// open something. A tool whose text speaks of open things still matches
// it; one named for opening (open_presentation) matches it much less.
func openAsState(text string) bool {
	words := Words(text)
	for j := 1; j < len(words); j++ {
		if words[j] == "open" && openStateCues[words[j-1]] {
			return true
		}
	}
	return false
}

// openStateCues are the words before "open" that make it a state.
var openStateCues = wordSet("currently still already now have has had is are was were my your our the this that these those an all any")

const (
	// stateWeight weighs a word that says a state (see openAsState);
	// stateNameWeight weighs it again in tools' names. Measured on the
	// calibration requests: the name's weight alone gained first places
	// from 0.2 down, the word's own from 0.7 down.
	stateWeight     = 0.5
	stateNameWeight = 0.2
)

// clauseVerbWeight weighs the verb of a contact clause (see clauseVerbs).
// Measured on the calibration requests: 0.3 gained fewer first places
// than 0.2; 0.1 gained no more.
const clauseVerbWeight = 0.2

// isStopWord reports whether a lower-case word carries no meaning of its
// own: an English stop word, a function word Snowball's list lacks (see
// functionWords), or what Words leaves of a contraction ("ve" of "I've",
// "doesn" of "doesn't").
func isStopWord(w string) bool {
	return english.IsStopWord(w) || contractionParts[w] || functionWords[w]
}

// functionWords are English words of no topic that Snowball's list
// lacks: prepositions of place and relation beside its "in", "into" and
// "through", which say no more than those ("what's inside /home/joe" asks
// what is in it, and "inside" stems as "insider" does), and indefinite
// pronouns ("forget everything about John").
var functionWords = wordSet(`inside within onto upon among amid throughout underneath
	everything anything something nothing everyone anyone someone everybody anybody somebody nobody`)

// contractionParts are the parts of English contractions that are not
// stop words already ("s" and "t" are) and no words of their own. The "d"
// of "I'd" and the "m" of "I'm" are words of their own too ("3D", "500
// m"): Words drops those where they follow an apostrophe.
var contractionParts = wordSet(`ve ll re doesn isn didn aren wasn weren
	couldn wouldn shouldn haven hasn hadn mustn needn shan mightn`)

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
