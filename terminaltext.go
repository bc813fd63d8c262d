package mcpgateway

import (
	"strconv"
	"strings"
	"unicode"
)

// terminalText is s as `caddy mcp-gateway` prints it: every character that
// would steer the operator's terminal rather than print (control
// characters, C1 included, such as the escape that starts an ANSI or OSC
// sequence, a carriage return that overwrites the line, a line break or
// tab that breaks the table's layout, and format characters: bidi
// overrides and isolates, zero-width characters) written as its Go
// escape, \x1b or \u202e, so an upstream's text (a description, its
// instructions, an error) shows what it holds and does nothing else.
// Invalid UTF-8 prints as U+FFFD.
func terminalText(s string) string {
	if !strings.ContainsFunc(s, steersTerminal) && strings.ToValidUTF8(s, "\uFFFD") == s {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if steersTerminal(r) {
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// steersTerminal reports a character that is not printed as itself.
func steersTerminal(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}
