package gateway

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/caddy-mcp/mcp-gateway/search"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// metaGroupsKey is the _meta key under which a tool may name its groups
// (SEP-2084 style): a list of strings, or one string.
const metaGroupsKey = "io.modelcontextprotocol/groups"

// fallbackGroup holds the tools of a domain that share no group word.
const fallbackGroup = "general"

// groupFromMeta returns the first group the upstream declares for t that is
// not just the domain's own name and is a usable group name
// (usableGroupName), or "".
func groupFromMeta(t *mcp.Tool, domain string) string {
	for _, n := range metaGroupNames(t) {
		n = strings.TrimSpace(n)
		if n != "" && !strings.EqualFold(n, domain) && usableGroupName(n) {
			return n
		}
	}
	return ""
}

// metaGroupNames are the group names t declares in its _meta, as the
// upstream wrote them.
func metaGroupNames(t *mcp.Tool) []string {
	var names []string
	switch v := t.Meta[metaGroupsKey].(type) {
	case string:
		names = []string{v}
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				names = append(names, s)
			}
		}
	}
	return names
}

// usableGroupName reports whether an upstream's group name may name a
// group the model reads and scopes by: at most 64 bytes of valid UTF-8,
// with no control character (an escape sequence, a line break) and no
// invisible one (unprintableGroupName).
func usableGroupName(n string) bool {
	return len(n) <= 64 && !unprintableGroupName(n)
}

// unprintableGroupName reports a group name that holds what a reader
// cannot see as itself: invalid UTF-8, a control character, or an
// invisible one ("billing\u200b" would look like "billing").
func unprintableGroupName(n string) bool {
	return !utf8.ValidString(n) || strings.ContainsFunc(n, func(r rune) bool { return unicode.IsControl(r) || invisible(r) })
}

// actionWords are the verbs and fillers that tool names are built from
// ("get_issue", "list_all_users"). They say what a tool does, not what it
// is about, so they never name a group.
var actionWords = map[string]bool{
	"a": true, "add": true, "all": true, "an": true, "and": true, "append": true, "by": true,
	"call": true, "cancel": true, "check": true, "clear": true, "close": true, "copy": true,
	"create": true, "del": true, "delete": true, "do": true, "download": true, "edit": true,
	"execute": true, "fetch": true, "find": true, "for": true, "from": true, "generate": true,
	"get": true, "in": true, "insert": true, "is": true, "list": true, "load": true, "make": true,
	"mcp": true, "modify": true, "move": true, "new": true, "of": true, "on": true, "open": true,
	"patch": true, "post": true, "put": true, "query": true, "read": true, "remove": true,
	"rename": true, "reset": true, "retrieve": true, "run": true, "save": true, "search": true,
	"send": true, "set": true, "show": true, "start": true, "stop": true, "the": true, "to": true,
	"tool": true, "update": true, "upload": true, "upsert": true, "use": true, "view": true,
	"with": true, "write": true,
}

// inferGroups names a group for each tool of one domain from the words of
// the tool names: the most widely shared subject word of each name (not an
// action word, not the domain's own name), or fallbackGroup when a tool
// shares none. Words are compared in singular form, and a group is labelled
// with the word as the first tool spelled it.
func inferGroups(domain string, names []string) []string {
	domainWords := make(map[string]bool)
	for _, w := range search.Words(domain) {
		domainWords[singular(w)] = true
	}
	subjects := make([][]string, len(names))
	label := make(map[string]string)
	df := make(map[string]int)
	for i, name := range names {
		seen := make(map[string]bool)
		for _, w := range search.Words(name) {
			s := singular(w)
			if actionWords[w] || actionWords[s] || domainWords[s] || len(s) < 2 || isNumber(s) || seen[s] {
				continue
			}
			seen[s] = true
			subjects[i] = append(subjects[i], s)
			df[s]++
			if _, ok := label[s]; !ok {
				label[s] = w
			}
		}
	}
	groups := make([]string, len(names))
	for i := range names {
		best, bestDF := "", 1
		for _, s := range subjects[i] {
			// A word in (nearly) every tool separates nothing.
			if df[s] > bestDF && (df[s] < len(names) || len(names) <= 2) && float64(df[s]) <= 0.8*float64(len(names)) {
				best, bestDF = s, df[s]
			}
		}
		if best == "" {
			groups[i] = fallbackGroup
		} else {
			groups[i] = label[best]
		}
	}
	return groups
}

// singular is a rough English singular, good enough to file "entities" and
// "entity" together.
func singular(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 4 && (strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes")):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
}

func isNumber(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
