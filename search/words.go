package search

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Words splits text into lowercase search words. Runs of letters and digits
// are words; identifiers are split at '_', '-', '.' and camelCase
// boundaries ("getHTTPResponse" gives "get", "http", "response"); accents
// are folded ("café" gives "cafe"); each Han, kana or Hangul character is a
// word of its own, since those scripts do not separate words with spaces.
// The one-letter contractions are dropped ("I'd", "I'm" give "i"), so that
// "d" and "m" stay words of their own ("3D", "500 m").
func Words(text string) []string {
	text = withoutLetterContractions(text)
	if isASCII(text) {
		return asciiWords(text)
	}
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			if w := string(cur); isAcronymPlural(w) {
				cur = cur[:len(cur)-1]
			}
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	// Invalid UTF-8 separates words, as any other non-letter does; it
	// goes before normalising, whose handling of it depends on what
	// follows ("\xf1Ά" kept the accent that "\xf1Ά " lost).
	runes := []rune(norm.NFD.String(strings.ToValidUTF8(text, " ")))
	for i, r := range runes {
		switch {
		case unicode.Is(unicode.Mn, r):
			// A combining mark left by NFD: drop it, keep the base letter.
		case isIdeographic(r):
			flush()
			words = append(words, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if len(cur) > 0 && camelBoundary(runes, i) {
				flush()
			}
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return words
}

// asciiWords is Words for ASCII text, without the Unicode machinery:
// most tool text is ASCII, and indexing large catalogs spends its time
// here.
func asciiWords(text string) []string {
	// Room for most texts' words: about one in six bytes of prose.
	words := make([]string, 0, len(text)/6+1)
	start := -1
	upper := false // whether text[start:i] has an upper case letter
	var buf []byte
	for i := 0; i < len(text); i++ {
		c := asciiClass[text[i]]
		if c == classOther {
			if start >= 0 {
				words, buf = appendASCIIWord(words, buf, text[start:i], upper)
				start = -1
			}
			continue
		}
		if start >= 0 && c == classUpper {
			prev := asciiClass[text[i-1]]
			nextLower := i+1 < len(text) && asciiClass[text[i+1]] == classLower
			pluralS := text[i+1:] == "s" || (strings.HasPrefix(text[i+1:], "s") && !isASCIILetter(text[i+2]))
			if prev == classLower || prev == classDigit || (prev == classUpper && nextLower && !pluralS) {
				words, buf = appendASCIIWord(words, buf, text[start:i], upper)
				start = -1
			}
		}
		if start < 0 {
			start, upper = i, false
		}
		upper = upper || c == classUpper
	}
	if start >= 0 {
		words, buf = appendASCIIWord(words, buf, text[start:], upper)
	}
	return words
}

// appendASCIIWord appends word, lower-cased, to words: a slice of the
// text when it is lower case already (upper says whether it is not), else
// a copy lower-cased in buf. An acronym's plural loses its "s" ("PDFs" is
// the word "pdf").
func appendASCIIWord(words []string, buf []byte, word string, upper bool) ([]string, []byte) {
	if upper && isAcronymPlural(word) {
		word = word[:len(word)-1]
	}
	if !upper {
		return append(words, word), buf
	}
	buf = append(buf[:0], word...)
	for i, c := range buf {
		if 'A' <= c && c <= 'Z' {
			buf[i] = c + 'a' - 'A'
		}
	}
	return append(words, string(buf)), buf
}

// The classes of ASCII bytes for asciiWords: letters by case, digits, and
// all else, which separates words.
const (
	classOther = iota
	classLower
	classUpper
	classDigit
)

var asciiClass = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = classLower
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = classUpper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = classDigit
	}
	return t
}()

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isAcronymPlural reports whether word is an acronym of two or more
// capitals with a plural "s" ("PDFs", "URLs", "IDs"), which camelCase
// splitting must not cut before its last capital.
func isAcronymPlural(word string) bool {
	n := len(word)
	if n < 3 || word[n-1] != 's' {
		return false
	}
	for i := 0; i < n-1; i++ {
		if c := word[i]; c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }

// camelBoundary reports whether a new word starts at runes[i]: a lower case
// letter or digit followed by an upper case one ("getUser"), or the last
// upper case letter of an acronym followed by a lower case one ("HTTPServer").
func camelBoundary(runes []rune, i int) bool {
	r, prev := runes[i], runes[i-1]
	if !unicode.IsUpper(r) {
		return false
	}
	if unicode.IsLower(prev) || unicode.IsDigit(prev) {
		return true
	}
	if !unicode.IsUpper(prev) || i+1 >= len(runes) || !unicode.IsLower(runes[i+1]) {
		return false
	}
	// "PDFs": the plural of an acronym, not an acronym and a word.
	pluralS := runes[i+1] == 's' && (i+2 == len(runes) || !unicode.IsLetter(runes[i+2]))
	return !pluralS
}

func isIdeographic(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// withoutLetterContractions drops the one-letter contractions of text:
// "I'd" and "I'm" are "I".
func withoutLetterContractions(text string) string {
	// Two byte searches: ContainsAny with a non-ASCII rune walks the text
	// rune by rune, and Words runs this on every text the index reads.
	if strings.IndexByte(text, '\'') < 0 && !strings.Contains(text, "’") {
		return text
	}
	return letterContraction.ReplaceAllString(text, "")
}

var letterContraction = regexp.MustCompile(`(?i)['’][dm]\b`)
