package gateway

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// An injection shape is a sequence of slots of words, written as
//
//	"DISREGARD ~8 EARLIER ~4 INSTRUCTIONS"
//
// Each slot is a set of alternatives separated by '|'; an alternative is a
// word or a phrase of words joined by '_' ("set_aside"), or the name of a
// class of alternatives (upper case, defined apart, and may name other
// classes). "~N" before a slot lets up to N words come between it and the
// slot before; without it the slots are adjacent. A shape matches a text
// when its slots are found in order within one sentence.
//
// Text is read as words: runs of letters and digits; '_', '-', '/' and
// other punctuation separate them (so "api_key", "api-key" and "api key"
// read alike); an apostrophe inside a word stays ("don't"); a dot that
// starts a file name stays with it (".ssh", ".env"); a colon is a word of
// its own; sentences end at '.', '!' or '?' before a space, and at line
// breaks. Matching is a walk over the words with a map lookup per word;
// each slot is tried at most once from each word, so a text is checked in
// time linear in its length, whatever it holds.

// shapeSet is a compiled set of shapes.
type shapeSet struct {
	shapes []shape
	// starts index, by its first word, every alternative a shape may
	// start with.
	starts map[string][]shapeStart
}

type shape struct{ slots []slot }

type slot struct {
	gap     int                   // words allowed before the slot
	phrases map[string][][]string // alternatives by first word
}

type shapeStart struct {
	shape  int
	phrase []string
}

// compileShapes compiles shapes whose slots may name classes; it panics on
// a malformed shape (they are the program's own).
func compileShapes(shapes []string, classes map[string]string) *shapeSet {
	set := &shapeSet{starts: map[string][]shapeStart{}}
	for i, text := range shapes {
		var sh shape
		gap := 0
		for _, item := range strings.Fields(text) {
			if n, ok := strings.CutPrefix(item, "~"); ok {
				g, err := strconv.Atoi(n)
				if err != nil {
					panic(fmt.Sprintf("shape %q: bad gap %q", text, item))
				}
				gap = g
				continue
			}
			sl := slot{gap: gap, phrases: map[string][][]string{}}
			for _, alt := range expandClasses(item, classes, 0) {
				phrase := strings.Split(alt, "_")
				sl.phrases[phrase[0]] = append(sl.phrases[phrase[0]], phrase)
				if len(sh.slots) == 0 {
					set.starts[phrase[0]] = append(set.starts[phrase[0]], shapeStart{shape: i, phrase: phrase})
				}
			}
			sh.slots = append(sh.slots, sl)
			gap = 0
		}
		if len(sh.slots) == 0 {
			panic(fmt.Sprintf("shape %q has no slots", text))
		}
		set.shapes = append(set.shapes, sh)
	}
	return set
}

// expandClasses expands the class names among a slot's alternatives.
func expandClasses(item string, classes map[string]string, depth int) []string {
	if depth > 4 {
		panic("injection shape classes nest too deep: " + item)
	}
	var out []string
	for _, alt := range strings.Split(item, "|") {
		if def, ok := classes[alt]; ok {
			out = append(out, expandClasses(def, classes, depth+1)...)
		} else if strings.ToLower(alt) != alt {
			panic("unknown injection shape class " + alt)
		} else {
			out = append(out, alt)
		}
	}
	return out
}

// match reports whether any shape matches folded text.
func (set *shapeSet) match(folded string) bool {
	words := injectionWords(folded)
	var failed map[slotAt]bool // (shape, slot, word) known not to match on: each is tried once
	for i, w := range words {
		for _, st := range set.starts[w] {
			if end, ok := phraseAt(words, i, st.phrase); ok {
				if failed == nil {
					failed = map[slotAt]bool{}
				}
				if set.shapes[st.shape].matchFrom(words, st.shape, 1, end, failed) {
					return true
				}
			}
		}
	}
	return false
}

// slotAt is a shape's slot k tried from word pos on.
type slotAt struct{ shape, k, pos int }

// matchFrom reports whether slots k onwards of shape number id match from
// word pos on, remembering the failures in failed.
func (sh shape) matchFrom(words []string, id, k, pos int, failed map[slotAt]bool) bool {
	if k == len(sh.slots) {
		return true
	}
	at := slotAt{id, k, pos}
	if failed[at] {
		return false
	}
	sl := sh.slots[k]
	for j := pos; j <= pos+sl.gap && j < len(words) && words[j] != ""; j++ {
		for _, phrase := range sl.phrases[words[j]] {
			if end, ok := phraseAt(words, j, phrase); ok && sh.matchFrom(words, id, k+1, end, failed) {
				return true
			}
		}
	}
	failed[at] = true
	return false
}

// phraseAt reports whether phrase stands at words[i:], and where it ends.
func phraseAt(words []string, i int, phrase []string) (int, bool) {
	if i+len(phrase) > len(words) {
		return 0, false
	}
	for k, w := range phrase {
		if words[i+k] != w {
			return 0, false
		}
	}
	return i + len(phrase), true
}

// injectionWords splits folded text into words, with "" marking the end
// of each sentence. The words are substrings of text (no copies).
func injectionWords(text string) []string {
	words := make([]string, 0, len(text)/5)
	start := -1
	flush := func(end int) {
		if start >= 0 {
			words = append(words, text[start:end])
			start = -1
		}
	}
	sentenceEnd := func() {
		if len(words) > 0 && words[len(words)-1] != "" {
			words = append(words, "")
		}
	}
	var prev rune
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		next := rune(0)
		if i+size < len(text) {
			next = rune(text[i+size])
			if next >= utf8.RuneSelf {
				next, _ = utf8.DecodeRuneInString(text[i+size:])
			}
		}
		switch {
		case wordRune(r):
			if start < 0 {
				start = i
			}
		case r == '\'' && start >= 0 && wordRune(next):
			// an apostrophe inside a word
		case r == '.' && start < 0 && wordRune(next) && !wordRune(prev) && prev != '.':
			start = i // a dot file: ".ssh"
		case r == ':':
			flush(i)
			words = append(words, ":")
		case r == '\n':
			flush(i)
			sentenceEnd()
		case (r == '.' || r == '!' || r == '?') && (next == 0 || unicode.IsSpace(next)) && prev != '.':
			flush(i)
			sentenceEnd()
		default:
			flush(i)
		}
		prev = r
		i += size
	}
	flush(len(text))
	return words
}

func wordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || 'A' <= r && r <= 'Z'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}
