package gateway

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The names and URIs of an upstream's prompts, resources and resource
// templates reach clients as the upstream wrote them (passthrough lists
// them, and clients ask for them by them), unlike tool names, which the
// gateway makes SEP-986 names. One that holds a control character (an
// escape sequence that steers a terminal, a line break) or a bidirectional
// control (which reorders how the text around it reads), or that is not
// valid UTF-8, is no name a client should be shown: the item is left out,
// with a notice. Titles and descriptions are texts, checked as such (see
// upstreamtext.go).

// steersText reports a name or URI that holds what a reader cannot see as
// itself: invalid UTF-8, a control character or a bidirectional control.
func steersText(s string) bool {
	return !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
	})
}

// withPrintableNames is items without those whose names (by names) steer
// text; each one left out adds a notice.
func withPrintableNames[T any](items []*T, kind string, names func(*T) []string, add func(bool, string)) []*T {
	if !slices.ContainsFunc(items, func(it *T) bool { return slices.ContainsFunc(names(it), steersText) }) {
		return items
	}
	out := make([]*T, 0, len(items))
	for _, it := range items {
		if i := slices.IndexFunc(names(it), steersText); i >= 0 {
			add(true, fmt.Sprintf("%s %s is left out: its names and URIs are printable text, without control characters or bidirectional controls", kind, quotedName(names(it)[i])))
			continue
		}
		out = append(out, it)
	}
	return out
}

func resourceNames(r *mcp.Resource) []string { return []string{r.URI, r.Name} }

func templateNames(t *mcp.ResourceTemplate) []string { return []string{t.URITemplate, t.Name} }

func promptNames(p *mcp.Prompt) []string {
	names := []string{p.Name}
	for _, a := range p.Arguments {
		if a != nil {
			names = append(names, a.Name)
		}
	}
	return names
}
