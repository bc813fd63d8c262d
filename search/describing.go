package search

import (
	"regexp"
	"strings"
)

// Words that describe rather than ask: what a request says of the thing it
// wants is no request for a tool that does it.

// clauseVerbs returns the stems of the verbs of text's contact clauses:
// a clause after a noun with its own subject and no "that" ("the page I
// have open", "the audio track I just loaded", "the response I'm waiting
// on") says which thing, and its verb is no request for a tool that does
// it. The verb is the first word after the subject that is neither a stop
// word nor an adverb. A subject among the words that lead the request
// ("could you list …") begins no clause: its verb is the request's own;
// nor does one after a verb of thinking or saying ("does SQL Server think
// we're missing any indexes", see thinkingWords).
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
		if !clauseSubjects[words[j]] || isStopWord(prev) || askingWords[prev] || thinkingWords[prev] || j-1 <= first {
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

// thinkingWords are verbs of thinking and saying: a subject after one
// begins what is thought or said ("does SQL Server think we're missing
// any indexes"), no clause that says which thing, and its verb stays the
// request's own.
var thinkingWords = wordSet(`think thinks thought know knows knew believe
	believes guess suppose say says said mean means hope wonder feel feels
	sure seem seems`)

// clauseSubjects begin a contact clause after a noun; clauseAdverbs may
// come between the subject and its verb, as may stop words and words in
// -ly ("I currently have open"), and what Words leaves of "I've", "I'm".
var (
	clauseSubjects = wordSet("i you we they")
	clauseAdverbs  = wordSet("already still just ve ll re m d")
)

// clauseVerbWeight weighs the verb of a contact clause (see clauseVerbs).
// How it was chosen: docs/search.md, "The tuned values".
const clauseVerbWeight = 0.2

// clauseVerbRule weighs the verbs of describing clauses less.
var clauseVerbRule = wordRule{
	name: "describing clause's verb",
	pick: func(ix *Index, text string) func(string) bool {
		verbs := clauseVerbs(text, ix.stems)
		if len(verbs) == 0 {
			return nil
		}
		return func(stem string) bool { return verbs[stem] }
	},
	weight: clauseVerbWeight, nameWeight: 1, nameScale: 1,
}

// "Open" as an adjective: "my open deck", "the presentations I have open"
// say which things (those that are open), not to open them, and as a main
// word "open" ranks open_presentation over list_presentations. The open
// state rule weighs such an "open" openStateWeight in tools' text and
// openStateNameWeight more in the share of a tool's name the request
// spells out. "Open" is an adjective after a determiner or possessive
// ("the open page", "my open deck") or after "have" ("which decks do you
// currently have open"); after a form of "be" ("is the store open on
// Sundays") it may be what the request asks about, and is left alone.
// The request's first word past the leading ones ("open the deck",
// "please open ...") is the request's verb, never an adjective.
// How it was chosen: docs/search.md, "The tuned values".
const (
	openStateWeight     = 0.5
	openStateNameWeight = 0.2
)

// openStateRule weighs "open" as an adjective (see openState).
var openStateRule = wordRule{
	name: "open state",
	pick: func(ix *Index, text string) func(string) bool {
		if !openState(text) {
			return nil
		}
		open := ix.stems.stem("open")
		return func(stem string) bool { return stem == open }
	},
	weight: openStateWeight, nameWeight: openStateNameWeight, nameScale: 1,
}

// openState reports whether text uses "open" as an adjective (see
// openStateRule).
func openState(text string) bool {
	for _, part := range clauseBreaks.Split(text, -1) {
		words := Words(part)
		for j := firstRequestWord(words) + 1; j < len(words); j++ {
			if words[j] == "open" && beforeOpenState[words[j-1]] {
				return true
			}
		}
	}
	return false
}

// beforeOpenState are the words after which "open" is an adjective:
// determiners, possessives and "have".
var beforeOpenState = wordSet(`the my our your his her their its this that
	these those an any all other every have has had ve`)
