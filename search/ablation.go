package search

import (
	"fmt"
	"strings"
)

// Ablation: switching parts of the ranking off, to measure what each
// pays (docs/search.md, "Which signals pay"). Each part that can be
// switched off has a name in ablationParts; a build lists the parts to
// switch off, comma-separated, in switchedOff, which only the linker sets:
//
//	go test -ldflags=-X=github.com/caddy-mcp/mcp-gateway/search.switchedOff=meaning,typo ...
//
// tools/bench/ablation measures every part so. Nothing else sets it: an
// ordinary build ranks with every part, and no option or configuration
// reaches it.
var switchedOff string

// ablationPart is a part of the ranking that can be switched off.
type ablationPart struct {
	kind string // signal, rerank, match, lexicon, analysis, part reader, word rule
	name string // its name in switchedOff
	what string // what switching it off leaves out
}

// ablationParts are the parts, in the order the ablation table lists
// them. The names of signals, part readers and word rules are theirs
// (see ablationName); TestAblationParts checks that each is here.
var ablationParts = []ablationPart{
	{"signal", "domain-named", "the bonus of a domain the request names"},
	{"signal", "domain-relevance", "the bonus of a domain whose tools match the request"},
	{"signal", "name-coverage", "the bonus of the share of a tool's name the request spells out"},
	{"signal", "listing", "the penalty of a listing tool for a request that names a file or an item"},
	{"signal", "plural-listing", "the bonus of a listing tool named for what the request asks about in the plural"},
	{"signal", "ask-or-act", "the penalty of a tool that reads for a request that acts, and the other way round"},
	{"signal", "do-or-undo", "the penalty of a tool that undoes what the request does, and the other way round"},
	{"signal", "numbered-item", "the penalty of a tool that names a numbered item in another form, or makes a new one"},
	{"signal", "placed-item", "the bonus of a tool that takes the item a request acts on"},
	{"signal", "asked-for", "the penalty of a tool that takes what the request asks to be told"},
	{"signal", "counted", "the bonus of a tool that takes how many to return"},
	{"signal", "several-items", "the bonus of a tool that takes several things, for a request that names several"},
	{"signal", "negated-action", "the penalty of a tool named for what the request says not to do, or to stop"},
	{"rerank", "meaning", "the rerank by closeness in meaning"},
	{"rerank", "steps", "ranking a request's steps and fusing the rankings"},
	{"match", "prefix", "matching longer words a word begins"},
	{"match", "compound-part", "matching the two words a word is made of"},
	{"match", "sibling", "matching a word's siblings (its stem with another ending)"},
	{"match", "typo", "matching spellings one typo away"},
	{"lexicon", "thesaurus", "the lexicon's thesaurus (operator synonyms stay)"},
	{"lexicon", "idioms", "the lexicon's idioms"},
	{"lexicon", "request-words", "dropping the words requests are wrapped in"},
	{"lexicon", "different-as-unique", `reading "different" before a thing as "unique"`},
	{"analysis", "gloss", "the English gloss of Chinese, in tools and requests"},
	{"analysis", "word-vectors", "the word vectors: the meaning rerank, and telling English words from typos"},
	{"analysis", "brand-terms", "indexing camelCase brand words whole"},
	{"analysis", "boilerplate", "leaving the words most domain descriptions share out of them"},
	{"part reader", "locators", "reading paths, URLs and element ids"},
	{"part reader", "files-handled-whole", "weighing the format of a file a request renames, moves, copies, deletes, uploads or downloads, or asks the existence, size or time of, as its name"},
	{"part reader", "quoted", "reading quoted text"},
	{"part reader", "identifiers", "reading identifiers (usp_GetOrders, getOrders) as names"},
	{"part reader", "searched-for", "reading what a request searches for"},
	{"part reader", "colon-content", "reading the content after a colon"},
	{"part reader", "said-content", `reading what to say ("saying the fix is deployed")`},
	{"part reader", "brand-words", "reading brand words whole, and their parts"},
	{"part reader", "value-kinds", "reading what a request's values are"},
	{"part reader", "compounds", "reading words run together"},
	{"word rule", "framing-verb", "weighing a framing verb less"},
	{"word rule", "passive-get", "weighing a passive \"get\" as nothing"},
	{"word rule", "place", "weighing place words less in names"},
	{"word rule", "describing-clauses-verb", "weighing the verb of a describing clause less"},
	{"word rule", "open-state", `weighing "open" as an adjective less`},
}

// off holds the parts switchedOff names; nil in an ordinary build.
var off = parseSwitchedOff(switchedOff)

// isOff reports whether the part named name is switched off.
func isOff(name string) bool { return off[name] }

// parseSwitchedOff reads switchedOff. An unknown name stops the program
// at once: a measurement that switched nothing off would pass for one
// that did.
func parseSwitchedOff(list string) map[string]bool {
	if list == "" {
		return nil
	}
	out := make(map[string]bool)
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		known := false
		for _, p := range ablationParts {
			known = known || p.name == name
		}
		if !known {
			panic(fmt.Sprintf("search: switchedOff names %q, which is no part of the ranking (see ablationParts)", name))
		}
		out[name] = true
	}
	return out
}

// ablationName is the name in switchedOff of a signal, part reader or
// word rule named name in explanations: lower case, words joined by '-'.
func ablationName(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(strings.ToLower(name), "'", ""), " ", "-")
}
