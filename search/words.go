// Package search ranks documents (tool descriptions) against free-text
// queries and suggests names close to a misspelled one. It knows nothing of
// MCP or Caddy: documents in, ranked hits out.
package search

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Words splits text into lowercase search words. Runs of letters and digits
// are words; identifiers are split at '_', '-', '.' and camelCase
// boundaries ("getHTTPResponse" gives "get", "http", "response"); accents
// are folded ("café" gives "cafe"); each Han, kana or Hangul character is a
// word of its own, since those scripts do not separate words with spaces.
func Words(text string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	runes := []rune(norm.NFD.String(text))
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
	return unicode.IsUpper(prev) && i+1 < len(runes) && unicode.IsLower(runes[i+1])
}

func isIdeographic(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}
