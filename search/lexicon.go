package search

import (
	"embed"
	"fmt"
	"slices"
	"strings"
)

// The lexicon: what the search knows of English, as data. The files of
// lexicon/ are embedded; each says its format at its top. All share
// these rules: a line's text after # is a comment, blank lines are
// skipped, and a word is one word as the search splits text (see Words):
// lower case letters and digits.
//
//	stopwords.txt     words of no meaning of their own, any number a line
//	requestwords.txt  words requests are wrapped in ("please", "help me")
//	thesaurus.txt     groups of words that mean the same, one a line
//	idioms.txt        "phrase = meaning", one a line ("look up = lookup")
//
// An operator adds thesaurus groups of their own (Options.Synonyms, in
// the thesaurus's format; see ParseSynonyms).
//
//go:embed lexicon/*.txt
var lexiconFiles embed.FS

var (
	// stopWords are the words of stopwords.txt (see isStopWord).
	stopWords = wordSet(lexiconFile("stopwords.txt"))
	// requestWords are the stems of the words of requestwords.txt.
	// Queries drop them.
	requestWords = stemSet(wordSet(lexiconFile("requestwords.txt")), "")
	// synonymGroups are the groups of thesaurus.txt.
	synonymGroups = mustParse(ParseSynonyms(lexiconFile("thesaurus.txt")))
	// synonymsByStem maps a stem to the stems of its synonyms.
	synonymsByStem = addSynonymGroups(make(map[string][]string), synonymGroups)
	// idioms map the idioms of idioms.txt to their meanings.
	idioms = mustParse(parseIdioms(lexiconFile("idioms.txt")))
)

// isRequestWord reports whether a stem is one of requestWords, which
// queries drop.
func isRequestWord(stem string) bool {
	return requestWords[stem] && !isOff("request-words")
}

// synonymWeight discounts a match through the thesaurus against the
// word itself.
const synonymWeight = 0.5

// lexiconFile is the text of a lexicon file, its comments and blank
// lines left out.
func lexiconFile(name string) string {
	data, err := lexiconFiles.ReadFile("lexicon/" + name)
	if err != nil {
		panic(err) // cannot happen: the files are embedded
	}
	var b strings.Builder
	for _, line := range dataLines(string(data)) {
		b.WriteString(line.text)
		b.WriteByte('\n')
	}
	return b.String()
}

// dataLine is a line of a lexicon file that holds data, with its number.
type dataLine struct {
	n    int
	text string
}

// dataLines are the lines of text that hold data: their comments cut,
// trimmed, the blank ones left out.
func dataLines(text string) []dataLine {
	var out []dataLine
	for i, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, dataLine{n: i + 1, text: line})
		}
	}
	return out
}

// mustParse is the value of a parse of an embedded lexicon file, which
// the tests check parses.
func mustParse[T any](v T, err error) T {
	if err != nil {
		panic("search: the embedded lexicon: " + err.Error())
	}
	return v
}

// ParseSynonyms reads thesaurus groups in the lexicon's format: one group
// a line, its words (two or more) separated by spaces, each one word as
// the search splits text; text after # is a comment. It returns the
// groups, one string of words each. Its errors name the line and say what
// to write.
func ParseSynonyms(text string) ([]string, error) {
	var groups []string
	for _, line := range dataLines(text) {
		group, err := synonymGroup(line.text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", line.n, err)
		}
		groups = append(groups, group)
	}
	return groups, nil
}

// synonymGroup checks one group's words and returns them lower-cased.
func synonymGroup(text string) (string, error) {
	words := strings.Fields(strings.ToLower(text))
	if len(words) < 2 {
		return "", fmt.Errorf("a group of synonyms needs two words or more, separated by spaces; %q has one", text)
	}
	for _, w := range words {
		if split := Words(w); len(split) != 1 || split[0] != w {
			return "", fmt.Errorf("%q is not one word as the search reads text (it reads %q): write words of letters and digits, each on its own", w, strings.Join(split, " "))
		}
	}
	return strings.Join(words, " "), nil
}

// addSynonymGroups adds to out each group's stems as synonyms of each
// other, and returns out.
func addSynonymGroups(out map[string][]string, groups []string) map[string][]string {
	for _, g := range groups {
		var stems []string
		for _, w := range strings.Fields(g) {
			stems = append(stems, stemWord(w))
		}
		for _, s := range stems {
			for _, o := range stems {
				if o != s && !slices.Contains(out[s], o) {
					out[s] = append(out[s], o)
				}
			}
		}
	}
	return out
}

// lexiconSynonyms are the thesaurus's synonyms by stem (none when it is
// switched off, see ablation.go).
func lexiconSynonyms() map[string][]string {
	if isOff("thesaurus") {
		return map[string][]string{}
	}
	return synonymsByStem
}

// withSynonymGroups is base with more groups: a copy, base unchanged.
func withSynonymGroups(base map[string][]string, groups []string) map[string][]string {
	out := make(map[string][]string, len(base))
	for s, syns := range base {
		out[s] = slices.Clone(syns)
	}
	return addSynonymGroups(out, groups)
}

// parseIdioms reads idioms.txt: "phrase = meaning" a line, the phrase of
// two to four words.
func parseIdioms(text string) (map[string]string, error) {
	out := make(map[string]string)
	for _, line := range dataLines(text) {
		phrase, meaning, ok := strings.Cut(line.text, "=")
		phrase, meaning = strings.Join(strings.Fields(phrase), " "), strings.TrimSpace(meaning)
		if n := len(strings.Fields(phrase)); !ok || n < 2 || n > maxIdiomWords || meaning == "" {
			return nil, fmt.Errorf("line %d: an idiom is written \"phrase = meaning\", the phrase of 2 to %d words: %q", line.n, maxIdiomWords, line.text)
		}
		if _, dup := out[phrase]; dup {
			return nil, fmt.Errorf("line %d: %q twice", line.n, phrase)
		}
		out[phrase] = meaning
	}
	return out, nil
}

// maxIdiomWords is the most words an idiom has (see idiomAt).
const maxIdiomWords = 4
