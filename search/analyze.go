package search

import (
	"regexp"
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
	if isOff("brand-terms") {
		return nil
	}
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

// lightVerbs are verbs that in a request carry little of the job, which
// lies in their object or in the idiom they make ("go to the page", "put
// the chart on slide 2", "take a screenshot"), as stems: a part of a
// request that holds one names an action (see namesAction).
var lightVerbs = map[string]bool{}

func init() {
	for _, w := range []string{"go", "put", "take", "have", "do", "keep", "bring"} {
		lightVerbs[stemWord(w)] = true
	}
}

// framingVerbs, first in a request, frame it: "show me the last 10
// commits" asks to see the commits, and a tool named for showing
// (git_show) is no likelier for that, so queries weigh the verb
// framingVerbWeight there. "get", "check", "list" and "find" are not
// framing verbs: they often name the job.
var framingVerbs = wordSet("show display")

// framingVerbWeight weighs a request's framing verb (see framingVerbs).
const framingVerbWeight = 0.3

// framingVerbRule weighs a request's framing verb less.
var framingVerbRule = wordRule{
	name: "framing verb",
	pick: func(ix *Index, text string) func(string) bool {
		framing := framingVerb(text, ix.stems)
		if framing == "" {
			return nil
		}
		return func(stem string) bool { return stem == framing }
	},
	weight: framingVerbWeight, nameWeight: 1, nameScale: 1,
}

// framingVerb returns the stem of the framing verb text begins with, past
// its leading words ("can you show me"), or "" if it begins otherwise.
func framingVerb(text string, stems *stemCache) string {
	words := Words(text)
	if i := firstRequestWord(words); i < len(words) && framingVerbs[words[i]] {
		return stems.stem(words[i])
	}
	return ""
}

// isStopWord reports whether a lower-case word carries no meaning of its
// own: a word of the lexicon's stopwords.txt (English stop words, and
// what Words leaves of a contraction, "ve" of "I've").
func isStopWord(w string) bool {
	return stopWords[w]
}
