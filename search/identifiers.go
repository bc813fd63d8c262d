package search

import (
	"strings"
	"unicode"
)

// splitIdentifiers takes a request's identifiers out of it: the tokens
// that join words with '_' (usp_GetOrders, node_cpu_seconds_total) or run
// them together in camelCase from a lower-case word of two letters or
// more (getOrders, userId). An identifier names a thing, a procedure, a
// metric or a field, as a file's name does; its words say what to act on,
// not what to do: "get the SQL of usp_UpdateStock" is no request to
// update a stock. It returns the text without them and their words, which
// count as a file's name does (payloadWeight). A brand written in
// camelCase (iPhone, eBay, GitHub) is no identifier (see
// readBrandWords).
func splitIdentifiers(text string) (rest, names string) {
	if !strings.ContainsFunc(text, func(r rune) bool { return r == '_' || unicode.IsUpper(r) }) {
		return text, ""
	}
	var kept, found []string
	for _, tok := range strings.Fields(text) {
		if isNameToken(strings.Trim(tok, "\"'`()[]{}<>,;:!?.")) {
			found = append(found, tok)
			continue
		}
		kept = append(kept, tok)
	}
	if len(found) == 0 {
		return text, ""
	}
	return strings.Join(kept, " "), strings.Join(found, " ")
}

// isNameToken reports whether tok is an identifier (see splitIdentifiers).
func isNameToken(tok string) bool {
	if i := strings.IndexByte(tok, '_'); i > 0 && i < len(tok)-1 {
		return isIdentifierText(tok)
	}
	runes := []rune(tok)
	if len(runes) < 4 || !unicode.IsLower(runes[0]) {
		return false
	}
	for i := 2; i < len(runes); i++ {
		if camelBoundary(runes, i) {
			return isIdentifierText(tok)
		}
	}
	return false
}

// isIdentifierText reports whether tok holds only letters, digits and
// '_': what a programming language names things with.
func isIdentifierText(tok string) bool {
	for _, r := range tok {
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// withoutIdentifiers is text without its identifiers: the tokens that
// join words with '_' or run them together in camelCase.
func withoutIdentifiers(text string) string {
	tokens := strings.Fields(text)
	kept := tokens[:0]
	for _, t := range tokens {
		if !isIdentifier(t) {
			kept = append(kept, t)
		}
	}
	return strings.Join(kept, " ")
}

// isIdentifier reports whether a token joins words with '_' or runs
// them together as Words splits camelCase (see camelBoundary):
// usp_GetOrders, node_cpu_seconds_total, getOrders, and brand names such
// as iPhone, which name no action either. It is wider than isNameToken:
// for cutting a request into steps (see namesAction) a brand names no
// action, while for weighing a request's words a brand is the service
// asked for, not a name to weigh less.
func isIdentifier(token string) bool {
	if strings.Contains(strings.Trim(token, "_"), "_") {
		return true
	}
	runes := []rune(token)
	for i := 1; i < len(runes); i++ {
		if camelBoundary(runes, i) {
			return true
		}
	}
	return false
}
