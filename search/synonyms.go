package search

import (
	"slices"
	"strings"
)

// synonymGroups is a small general thesaurus: words people use in requests
// and the words tool names and descriptions use for the same action or
// thing ("save" a file, a tool that "writes" one; a "picture", an
// "image"). A query word also matches the other words of its groups,
// discounted by synonymWeight.
//
// It holds everyday English for software actions and common objects only:
// no tool, service, product or task names, nothing drawn from a particular
// catalog. Add a group only when the words are interchangeable in most
// requests; a loose association ("save" and "download") costs more
// precision than it gains in recall.
var synonymGroups = []string{
	// actions
	"save write store persist export",
	"find search lookup locate seek",
	"get fetch retrieve obtain grab",
	"show display view",
	"delete remove erase forget",
	"create make generate produce",
	"edit modify update change alter rename",
	"read open load",
	"run execute launch invoke",
	"stop terminate kill halt end",
	"convert transform",
	"replace swap",
	"merge combine",
	"compare comparison diff difference",
	"summary summarize summarise overview",
	"recommend suggest recommendation suggestion",
	"translate translation",
	"remember memorize memory recall",
	"install setup",
	"buy purchase shop shopping",
	"plot chart graph diagram visualize visualization",
	"analyze analyse analysis examine inspect",
	"screenshot snapshot capture",
	"navigate visit browse",
	"click press tap",
	"insert append put",
	"clear reset wipe discard",
	"copy duplicate clone",
	"move rename relocate",
	"select choose pick",
	"dropdown select",
	"format prettify beautify",
	// things
	"picture image photo photograph pic artwork art",
	"folder directory dir",
	"spreadsheet workbook excel",
	"slide slides presentation deck powerpoint",
	"email mail inbox",
	"calendar schedule appointment",
	"meeting event",
	"money currency cash",
	"price cost pricing worth",
	"stock share ticker equity",
	"company business firm corporation enterprise",
	"location place address venue",
	"nearby near around",
	"note memo",
	"repo repository",
	"issue bug ticket",
	"website site webpage url link",
	"paper publication preprint",
	"news headline headlines",
	"story stories news",
	"video clip",
	"song music track",
	"movie film cinema",
	"recipe dish meal cook cooking",
	"restaurant dining eatery",
	"trending popular hot ranking viral",
	"cheap deal discount bargain",
	"product item goods merchandise",
	"hotel lodging accommodation",
	"flight airline",
	"job career vacancy",
	"car vehicle automobile",
	"weather forecast",
	"directions route navigation",
	"info information details",
	"statistics stats metrics analytics",
	"documentation docs manual guide tutorial",
	"transcript subtitles captions",
	"crypto cryptocurrency",
	"code program script source",
	"database db",
	"time clock",
	"team squad lineup roster",
	"history log",
	"structure tree hierarchy outline",
	"tree nested hierarchical",
	"task todo",
	"coordinates latitude longitude geocode",
	"earnings income profit revenue",
	"leaderboard standings ranking",
	"latest newest recent",
	"current today",
	"outdated deprecated obsolete",
	"alternative replacement substitute",
	"vulnerability security cve",
	"library package module dependency",
	"terminal shell",
	"count quantity",
	"relation relationship link",
	"integer int",
	"validate verify assert check",
	"observation fact",
}

// idioms are phrasal verbs and set phrases of requests, as the word a tool
// would use for them: "get rid of my note" asks for a tool that deletes
// notes. A query is read with its idioms said plainly (see saidPlainly).
var idioms = map[string]string{
	"get rid of":         "delete",
	"changed between":    "differences between",
	"start a new":        "create new start",
	"start a brand new":  "create new start",
	"look up":            "lookup",
	"look for":           "search",
	"look through":       "search",
	"pull up":            "open",
	"instead of":         "alternative",
	"how much":           "price",
	"how many":           "count stats",
	"turn into":          "convert",
	"take off":           "remove",
	"set up":             "setup",
	"go to":              "navigate",
	"sign in":            "login",
	"log in":             "login",
	"write down":         "note",
	"sum up":             "summarize",
	"how big":            "size",
	"how large":          "size",
	"how far":            "distance",
	"how old":            "age",
	"throw away":         "discard",
	"tell me about":      "details info",
	"tell me more about": "details info",
	"shut down":          "close",
	"pretty print":       "format",
	"empty out":          "clear",
	"trading at":         "price",
	"trade at":           "price",
	"at once":            "simultaneously",
	"anything for":       "search",
	"anything about":     "search",
	"anything on":        "search",
	"is there a":         "search",
	"is there an":        "search",
	"is there any":       "search",
	"are there any":      "search",
	"trades at":          "price",
	"traded at":          "price",
	"close at":           "closing price",
	"closed at":          "closing price",
	"whole number":       "integer",
	"hit enter":          "press key",
	"step by step":       "sequential step",
	"dig into":           "research",
	"deep dive":          "research analysis",
	"clean up":           "clean format",
	"right now":          "current",
	"how long":           "duration",
	"appear in":          "find in",
	"appears in":         "find in",
	"show up in":         "find in",
	"shows up in":        "find in",
	"how many seconds":   "duration seconds",
	"how many minutes":   "duration minutes",
	"how many hours":     "duration hours",
	"balance sheet":      "balance sheet financial statement",
	"balance sheets":     "balance sheet financial statement",
}

// An HTTP method's request, alone or sent ("send a GET request", "make a
// PUT request", "send a PATCH"), is an "http get request" and so on: no
// request for the task manager's requests, and no change asked for by
// "send" or "make" (see requestIntent). "Send a post" stays: a post is
// also a message.
func init() {
	for _, method := range []string{"get", "post", "put", "delete", "patch"} {
		meaning := "http " + method + " request"
		idioms[method+" request"] = meaning
		for _, lead := range []string{"send a", "make a", "do a", "issue a"} {
			idioms[lead+" "+method+" request"] = meaning
		}
		if method != "post" {
			idioms["send a "+method] = meaning
		}
	}
}

// saidPlainly returns the words of text with each idiom it holds put as
// the word a tool would use ("get rid of my note" becomes "delete my
// note"). The idiom's own words go: "trading" in "what is it trading at"
// is no request for a tool that trades. "Different" before a thing says
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
		if words[i] == "different" && i+1 < len(words) && !comparingWords[words[i+1]] {
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
	for size := 4; size >= 2; size-- {
		if i+size <= len(words) {
			if w, ok := idioms[strings.Join(words[i:i+size], " ")]; ok {
				return w, size
			}
		}
	}
	return "", 0
}

// synonymWeight discounts a match through the thesaurus against the
// word itself.
const synonymWeight = 0.5

// synonymsByStem maps a stem to the stems of its synonyms.
var synonymsByStem = buildSynonyms(synonymGroups)

func buildSynonyms(groups []string) map[string][]string {
	return addSynonymGroups(make(map[string][]string), groups)
}

// withSynonymGroups is base with more groups: a copy, base unchanged.
func withSynonymGroups(base map[string][]string, groups []string) map[string][]string {
	out := make(map[string][]string, len(base))
	for s, syns := range base {
		out[s] = slices.Clone(syns)
	}
	return addSynonymGroups(out, groups)
}

// addSynonymGroups adds to out each group's stems as synonyms of each
// other.
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
