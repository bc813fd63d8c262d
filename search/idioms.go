package search

import "strings"

// saidPlainly returns the words of text with each idiom it holds put as
// the word a tool would use ("pull up my note" becomes "open get my note").
// The idiom's own words go: "much" in "how much is it" is no request for
// a tool about amounts. "Different" before a thing says
// "unique": "3 different winners" asks for distinct ones, no difference.
func saidPlainly(text string) string {
	words := Words(text)
	out := make([]string, 0, len(words))
	for i := 0; i < len(words); i++ {
		if meaning, n := idiomAt(words, i); n > 0 {
			out = append(out, meaning)
			i += n - 1
			continue
		}
		if words[i] == "different" && !isOff("different-as-unique") && i+1 < len(words) && !comparingWords[words[i+1]] {
			out = append(out, "unique")
			continue
		}
		out = append(out, words[i])
	}
	return strings.Join(out, " ")
}

// comparingWords are the words after "different" that make it compare
// ("different from", "different between").
var comparingWords = wordSet("from between than to with")

// idiomAt returns the meaning and length of the idiom of two to four
// words that begins at words[i], the longer first, or n == 0 if none
// does.
func idiomAt(words []string, i int) (meaning string, n int) {
	if isOff("idioms") {
		return "", 0
	}
	for size := 4; size >= 2; size-- {
		if i+size <= len(words) {
			if w, ok := idioms[strings.Join(words[i:i+size], " ")]; ok {
				return w, size
			}
		}
	}
	return "", 0
}
