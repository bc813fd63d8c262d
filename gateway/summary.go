package gateway

import (
	"strings"
	"unicode"
)

// maxSummaryRunes bounds the one-line descriptions discover_tools lists.
const maxSummaryRunes = 100

// summarize returns the first sentence of a description on one line, cut
// at a word boundary to at most maxSummaryRunes, so that a listing of many
// tools stays compact. The full text is in get_tool_schema.
func summarize(desc string) string {
	s := strings.Join(strings.Fields(desc), " ")
	if i := sentenceEnd(s); i > 0 {
		s = s[:i]
	}
	r := []rune(s)
	if len(r) <= maxSummaryRunes {
		return s
	}
	cut := maxSummaryRunes - 1
	for i := cut; i > maxSummaryRunes*2/3; i-- {
		if unicode.IsSpace(r[i]) {
			cut = i
			break
		}
	}
	return strings.TrimRight(string(r[:cut]), " ,;:-") + "…"
}

// sentenceEnd returns the index just past the first sentence of s (a '.',
// '!' or '?' followed by a space, or a CJK full stop), or -1.
func sentenceEnd(s string) int {
	for i, r := range s {
		switch r {
		case '.', '!', '?':
			if i+1 < len(s) && s[i+1] == ' ' && !abbreviationBefore(s, i) {
				return i + 1
			}
		case '。', '！', '？':
			return i + len(string(r))
		}
	}
	return -1
}

// abbreviationBefore reports whether the '.' at s[i] ends an abbreviation
// ("e.g.", "etc.", "U.S.") rather than a sentence.
func abbreviationBefore(s string, i int) bool {
	word := s[strings.LastIndexByte(s[:i], ' ')+1 : i]
	if word == "" || strings.ContainsRune(word, '.') || (len(word) == 1 && unicode.IsUpper(rune(word[0]))) {
		return true
	}
	switch strings.ToLower(word) {
	case "e.g", "i.e", "etc", "vs", "approx", "incl", "eg", "ie", "no":
		return true
	}
	return false
}
