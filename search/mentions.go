package search

import "strings"

// Mentions of other tools. A description often names the tool to call
// first or next ("the station code, from `get-station-code-by-names`",
// "use get_text_file_contents to read the file first"): a dependency, not
// what the tool does, and its words made the tool a match for requests
// that want the one it names ("train tickets from Beijing" found
// get-train-route-stations, whose parameters say their codes come from
// get-tickets). So the index leaves the names of the catalog's other
// tools out of a tool's description and parameter text. Only names of
// more than one word (get_tickets, readFile) are left out: a one-word name
// ("search", "fetch", "tempo") is as likely an ordinary word.

// toolNameMentions is the set of the names of docs of more than one word.
func toolNameMentions(docs []Document) map[string]bool {
	names := make(map[string]bool)
	if isOff("mentions") {
		return names
	}
	for i := range docs {
		if n := docs[i].Name; isCompoundIdentifier(n) {
			names[n] = true
		}
	}
	return names
}

// withoutMentions is text with each identifier in it that is a name in
// mentions, other than own, replaced by a space. An identifier is a run
// of ASCII letters, digits, '_', '-' and '.', less the '-' and '.' at
// its ends.
func withoutMentions(text, own string, mentions map[string]bool) string {
	var b strings.Builder
	last := 0
	for start := 0; start < len(text); {
		if !isIdentifierByte(text[start]) {
			start++
			continue
		}
		end, compound := start, false
		for end < len(text) && isIdentifierByte(text[end]) {
			c := text[end]
			compound = compound || c == '_' || c == '-' || ('A' <= c && c <= 'Z' && end > start && 'a' <= text[end-1] && text[end-1] <= 'z')
			end++
		}
		if !compound {
			start = end
			continue
		}
		from, to := start, end
		for from < to && (text[from] == '-' || text[from] == '.') {
			from++
		}
		for to > from && (text[to-1] == '-' || text[to-1] == '.') {
			to--
		}
		if tok := text[from:to]; tok != own && mentions[tok] {
			b.WriteString(text[last:from])
			b.WriteByte(' ')
			last = to
		}
		start = end
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// isCompoundIdentifier reports whether name is an identifier of more than
// one word: words joined by '_' or '-', or camelCase.
func isCompoundIdentifier(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isIdentifierByte(c) {
			return false
		}
		if c == '_' || c == '-' || ('A' <= c && c <= 'Z' && i > 0 && 'a' <= name[i-1] && name[i-1] <= 'z') {
			return i > 0 && i < len(name)-1
		}
	}
	return false
}

func isIdentifierByte(c byte) bool {
	return isASCIIAlnum(c) || c == '_' || c == '-' || c == '.'
}
