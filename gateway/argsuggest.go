package gateway

import (
	"strings"
	"unicode"

	"github.com/caddy-mcp/mcp-gateway/search"
)

// maxSuggestedNames bounds the names one "did you mean" offers.
const maxSuggestedNames = 2

// closestNames returns the names among known that name was most likely
// meant to be, best first, at most maxSuggestedNames: the one name that
// differs from it only in letter case and separators ("userId", "UserID",
// "user-id" and "userid" for "user_id"), else the names search.Suggest
// finds close (misspellings, abbreviations, words in another order), as
// for tool names. Nothing when nothing is close.
func closestNames(name string, known []string) []string {
	folded := foldName(name)
	var same []string
	for _, k := range known {
		if k != name && folded != "" && foldName(k) == folded {
			same = append(same, k)
		}
	}
	if len(same) == 1 {
		return same
	}
	var out []string
	for _, i := range search.Suggest(name, known, maxSuggestedNames) {
		if known[i] != name {
			out = append(out, known[i])
		}
	}
	return out
}

// foldName is name in lower case without the characters that are not
// letters or digits: what is left when case and separators are ignored.
func foldName(name string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, name)
}
