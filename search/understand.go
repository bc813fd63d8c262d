package search

import (
	"slices"
	"strings"
)

// Query understanding: a request's text read into weighted words, each
// with the index terms it matches. Three kinds of rule take part, each a
// unit of its own file, listed here in the order they apply:
//
//   - part readers take out of the text the parts that say what to act on
//     rather than what to do (paths and URLs, quoted text, identifiers,
//     what is searched for, ...), or add words the text implies (what its
//     values are, its words run together, the English of its Chinese);
//   - word rules weigh some of the remaining words less: those that say
//     less of the job (light verbs, a framing verb, a state, the verb of a
//     describing clause) or say where rather than what (place words);
//   - the request's remaining words, its idioms said plainly (see
//     saidPlainly), are its main words, at full weight; then the parts'
//     words, each part at its weight.
//
// A word counts once, at its first weight.

// maxQueryTerms bounds the distinct words of a query that count.
const maxQueryTerms = 64

// reading is a request as the index understands it: its words, in the
// order they count.
type reading struct {
	terms []queryTerm
	// words counts the words that count towards coverage.
	words int
	// namesFile says whether the request names a file (see splitLocators).
	namesFile bool
	// parts are the texts of the request's parts (see requestParts), by
	// part.
	parts [numParts]string
}

// queryTerm is one word of a query with the index terms it matches.
type queryTerm struct {
	word     string // its stem
	part     part   // the part of the request it comes from; partText for its main words
	required bool
	// rules are the word rules that weigh it (see wordRules).
	rules []*wordRule
	// nameFactors weigh it again, in order, in the share of a tool's name
	// the request spells out; nameScale scales its frequency in tools'
	// names (see wordRule).
	nameFactors []float64
	nameScale   float64
	matches     []termMatch
}

// part is a part of a request: its main text, or a part a part reader
// takes out of it or adds.
type part int

// The parts of a request, in the order their words count (a word in two
// counts at the first's weight). The directories of paths come last, so
// that a word said otherwise too counts as that ("/root/csv/a.csv").
const (
	partText part = iota
	partCompound
	partLocatorName
	partQuoted
	partIdentifier
	partSearchedFor
	partColonContent
	partSaidContent
	partLocatorKind
	partHandledFormat
	partValueKind
	partBrandPart
	partGloss
	partDirectory
	numParts
)

// spelledAsMeant reports whether the words of part p are names, which
// match no word one typo away: a path's or URL's names, an identifier's
// and a directory's.
func spelledAsMeant(p part) bool {
	return p == partLocatorName || p == partIdentifier || p == partDirectory
}

// MainWords is what explanations say a request's own words come from (see
// ReadWord.From), as against a part of it a part reader took out.
const MainWords = "the request's words"

// requestParts name the parts and give their weights.
var requestParts = [numParts]struct {
	name   string
	weight float64
}{
	partText:          {MainWords, 1},
	partCompound:      {"words run together", compoundWeight},
	partLocatorName:   {"the name in a path or URL", payloadWeight},
	partQuoted:        {"quoted text", payloadWeight},
	partIdentifier:    {"an identifier", payloadWeight},
	partSearchedFor:   {"what to search for", payloadWeight},
	partColonContent:  {"the content after a colon", payloadWeight},
	partSaidContent:   {"what to say", payloadWeight},
	partLocatorKind:   {"what a path or URL points at", locatorWeight},
	partHandledFormat: {"the format of a file handled whole", payloadWeight},
	partValueKind:     {"what a value is", locatorWeight},
	partBrandPart:     {"a part of a brand word", brandPartWeight},
	partGloss:         {"the English of its Chinese", glossQueryWeight},
	partDirectory:     {"a directory in a path", dirWeight},
}

const (
	// locatorWeight weighs the words for what a query's paths and URLs
	// point at (see splitLocators); discounting them lost more than it
	// gained. payloadWeight weighs the words that name the file or site,
	// and quoted text: what to act on rather than what to do.
	locatorWeight = 1.0
	payloadWeight = 0.5
	// dirWeight weighs the words of the directories a query's paths name
	// their files and folders in ("home sam projects" of
	// "/home/sam/projects/blog/assets"; see splitLocators): less than a
	// file's own name.
	// How it was chosen: docs/search.md, "The tuned values".
	dirWeight = 0.15
	// compoundWeight weighs the compounds of a query's adjacent words
	// (see joinedWords); at full weight they cost more than they gained.
	compoundWeight = 0.5
	// brandPartWeight weighs the parts of a brand word the query holds
	// whole ("git" and "hub" of "GitHub", see joinBrandWords).
	brandPartWeight = 0.5
	// glossQueryWeight discounts the words of a Chinese query's English
	// gloss.
	glossQueryWeight = 0.5
)

// A partReader reads a request's text (what the readers before it left
// of it): it may take a part out, returning the rest, and sets the texts
// of its parts in r.
type partReader struct {
	name string // its name in ablationParts
	read func(ix *Index, r *reading, text string) (rest string)
}

// partReaders, in order: each sees the text the ones before it left.
var partReaders = []partReader{
	{"locators", readLocators},
	{"quoted", readQuoted},
	{"identifiers", readIdentifiers},
	{"searched-for", readSearchedFor},
	{"colon-content", readColonContent},
	{"said-content", readSaidContent},
	{"brand-words", readBrandWords},
	{"value-kinds", readValueKinds},
	{"compounds", readCompounds},
	{"gloss", readGloss},
}

// A wordRule weighs some of a request's main words less. Each reads the
// request's text (what the part readers left of it) and picks words by
// their stems.
type wordRule struct {
	name string
	// pick reads a request's text and returns whether the rule weighs
	// each of its words (by stem); nil when it weighs none.
	pick func(ix *Index, text string) func(stem string) bool
	// weight multiplies the word's weight; nameWeight multiplies it again
	// in the share of a tool's name the request spells out; nameScale
	// scales its frequency in tools' names (the least of the rules'
	// counts).
	weight, nameWeight, nameScale float64
}

// wordRules, in the order they weigh a word.
var wordRules = []*wordRule{
	&framingVerbRule,
	&passiveGetRule,
	&placeRule,
	&clauseVerbRule,
	&openStateRule,
}

// parse reads a request's text, with its required words.
func (ix *Index) parse(text string, required []string) *reading {
	r := &reading{}
	req := make(map[string]bool)
	for _, w := range required {
		for _, t := range terms(w, ix.stems) {
			req[t] = true
		}
	}
	for _, reader := range partReaders {
		if !isOff(reader.name) {
			text = reader.read(ix, r, text)
		}
	}
	english := englishStems(text, ix.stems)
	var picks []func(string) bool
	var rules []*wordRule
	for _, rule := range wordRules {
		if off != nil && isOff(ablationName(rule.name)) {
			continue
		}
		if pick := rule.pick(ix, text); pick != nil {
			picks, rules = append(picks, pick), append(rules, rule)
		}
	}
	seen := make(map[string]bool)
	for _, t := range terms(saidPlainly(text), ix.stems) {
		if seen[t] || len(r.terms) == maxQueryTerms || isRequestWord(t) {
			continue
		}
		seen[t] = true
		r.words++
		qt := queryTerm{word: t, part: partText, required: req[t], nameScale: 1, matches: ix.withSynonyms(t, ix.expand(t, english[t]))}
		for i, pick := range picks {
			if !pick(t) {
				continue
			}
			rule := rules[i]
			qt.rules = append(qt.rules, rule)
			if rule.weight != 1 {
				for j := range qt.matches {
					qt.matches[j].weight *= rule.weight
				}
			}
			if rule.nameWeight != 1 {
				qt.nameFactors = append(qt.nameFactors, rule.nameWeight)
			}
			qt.nameScale = min(qt.nameScale, rule.nameScale)
		}
		if len(qt.matches) == 0 && !qt.required {
			continue
		}
		r.terms = append(r.terms, qt)
	}
	for p := partText + 1; p < numParts; p++ {
		if r.parts[p] == "" {
			continue
		}
		for _, t := range terms(r.parts[p], ix.stems) {
			if seen[t] || len(r.terms) == maxQueryTerms || isRequestWord(t) {
				continue
			}
			seen[t] = true
			matches := ix.expand(t, false)
			if spelledAsMeant(p) {
				// A name is spelled as its owner meant: "readme" of
				// notes/readme.txt is no typo of "read".
				matches = slices.DeleteFunc(matches, func(m termMatch) bool { return m.how == matchTypo })
			}
			for i := range matches {
				matches[i].weight *= requestParts[p].weight
			}
			if len(matches) > 0 {
				r.words++
				r.terms = append(r.terms, queryTerm{word: t, part: p, nameScale: 1, matches: matches})
			}
		}
	}
	for _, t := range slices.Sorted(mapKeys(req)) {
		if !seen[t] {
			// A required word that is not in the text still filters.
			r.terms = append(r.terms, queryTerm{word: t, part: partText, required: true, nameScale: 1, matches: ix.expand(t, false)})
			r.words++
		}
	}
	return r
}

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// The part readers of the rules whose files hold no Index method.

func readLocators(_ *Index, r *reading, text string) string {
	rest, kinds, payload, dirs := splitLocators(text)
	r.namesFile = slices.Contains(strings.Fields(kinds), "file")
	if kinds != "" && handlesWhole(text) {
		kinds, r.parts[partHandledFormat] = splitFormats(kinds)
	}
	r.parts[partLocatorKind], r.parts[partLocatorName], r.parts[partDirectory] = kinds, payload, dirs
	return rest
}

func readQuoted(_ *Index, r *reading, text string) string {
	rest, quotes := splitQuoted(text)
	r.parts[partQuoted] = quotes
	return rest
}

func readIdentifiers(_ *Index, r *reading, text string) string {
	rest, names := splitIdentifiers(text)
	r.parts[partIdentifier] = names
	return rest
}

func readSearchedFor(_ *Index, r *reading, text string) string {
	rest, searched := splitSearchedFor(text)
	r.parts[partSearchedFor] = searched
	return rest
}

func readColonContent(_ *Index, r *reading, text string) string {
	rest, content := splitColonContent(text)
	r.parts[partColonContent] = content
	return rest
}

func readSaidContent(_ *Index, r *reading, text string) string {
	rest, said := splitSaidContent(text)
	r.parts[partSaidContent] = said
	return rest
}

func readBrandWords(ix *Index, r *reading, text string) string {
	rest, parts := joinBrandWords(text, ix.stems, ix.indexed)
	r.parts[partBrandPart] = parts
	return rest
}

// readValueKinds says what the text's values are, and takes the numbers
// of its ranges of numbers out (see withoutNumberRanges).
func readValueKinds(_ *Index, r *reading, text string) string {
	r.parts[partValueKind] = valueKinds(text)
	return withoutNumberRanges(text)
}

func readCompounds(ix *Index, r *reading, text string) string {
	r.parts[partCompound] = ix.joinedWords(text)
	return text
}

func readGloss(_ *Index, r *reading, text string) string {
	r.parts[partGloss] = englishGloss(text)
	return text
}
