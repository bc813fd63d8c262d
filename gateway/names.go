package gateway

import (
	"slices"
	"strings"

	"github.com/caddy-mcp/mcp-gateway/search"
)

// maxNameLen bounds the tool names the gateway will look up.
const maxNameLen = 256

// qualifierSeparators are the ways a client may join a domain and a tool
// name. The catalog's own is '.', but a model that writes
// "memory_read_graph" or "memory/read_graph" still means memory.read_graph.
var qualifierSeparators = []string{".", "/", ":", "__", "_", "-"}

// LookupError says why a name does not resolve to one tool.
type LookupError struct {
	Name string
	// Candidates are the qualified names an ambiguous bare name may mean.
	Candidates []string
	// Suggestions are close names when nothing matched.
	Suggestions []string
}

func (e *LookupError) Error() string {
	if len(e.Candidates) > 0 {
		return "Tool name '" + e.Name + "' is in several domains: " + strings.Join(e.Candidates, ", ") + ". Use one of these names."
	}
	msg := "Unknown tool '" + echoed(e.Name) + "'."
	if len(e.Suggestions) > 0 {
		msg += " Did you mean " + orList(quoteAll(e.Suggestions)) + "?"
	}
	return msg + " Use discover_tools to browse or search available tools."
}

// Lookup resolves the name a client gave to one tool. It accepts, in this
// order: the qualified name ("domain.tool"); a domain joined to the tool
// name with another separator, or in other letter case; the bare upstream
// tool name when only one domain has it, and a name of the form
// "domain.x" only within that domain (see ownedBy). Anything else is a
// *LookupError with close names to suggest.
func (c *Catalog) Lookup(name string) (*Tool, error) {
	name = strings.TrimSpace(name)
	if len(name) > maxNameLen {
		return nil, &LookupError{Name: name[:maxNameLen] + "…"}
	}
	if t := c.byName[name]; t != nil {
		return t, nil
	}
	if t := c.lookupQualified(name); t != nil {
		return t, nil
	}
	owned := c.ownedBy(name)
	if ts := slices.DeleteFunc(slices.Clone(c.byBare[name]), func(t *Tool) bool { return !owned(t) }); len(ts) == 1 {
		return ts[0], nil
	} else if len(ts) > 1 {
		return nil, &LookupError{Name: name, Candidates: qualifiedNames(ts)}
	}
	var folded []*Tool
	for _, t := range c.Tools {
		if owned(t) && strings.EqualFold(t.LocalName, name) {
			folded = append(folded, t)
		}
	}
	if len(folded) == 1 {
		return folded[0], nil
	} else if len(folded) > 1 {
		return nil, &LookupError{Name: name, Candidates: qualifiedNames(folded)}
	}
	return nil, &LookupError{Name: name, Suggestions: c.SuggestTools(name, 3)}
}

// ownedBy says which tools a name may resolve to as a bare name: a name
// with the catalog's own form of a qualified name, a configured domain's
// name (hidden from this catalog's rule or not), '.' and more, is that
// domain's: it names one of its tools or none, however another domain's
// tools are named. An upstream cannot name a tool "crm.search" and have
// the calls meant for crm's search (while crm is down, or that tool held
// or denied) come to it. Any other name may resolve to any tool.
func (c *Catalog) ownedBy(name string) func(*Tool) bool {
	domain, _, qualified := strings.Cut(name, ".")
	if !qualified || !c.configured[strings.ToLower(domain)] {
		return func(*Tool) bool { return true }
	}
	return func(t *Tool) bool { return strings.EqualFold(t.Domain.Name, domain) }
}

// lookupQualified tries every way of splitting name into a domain, a
// separator and that domain's tool.
func (c *Catalog) lookupQualified(name string) *Tool {
	for _, d := range c.Domains {
		if len(name) <= len(d.Name) || !strings.EqualFold(name[:len(d.Name)], d.Name) {
			continue
		}
		rest := name[len(d.Name):]
		for _, sep := range qualifierSeparators {
			tool, ok := strings.CutPrefix(rest, sep)
			if !ok || tool == "" {
				continue
			}
			if t := d.tool(tool); t != nil {
				return t
			}
		}
	}
	return nil
}

// tool finds a tool of the domain by its name in the catalog (LocalName),
// exactly or, failing that, in other letter case when that is
// unambiguous.
func (d *Domain) tool(name string) *Tool {
	var folded []*Tool
	for _, t := range d.Tools {
		if t.LocalName == name {
			return t
		}
		if strings.EqualFold(t.LocalName, name) {
			folded = append(folded, t)
		}
	}
	if len(folded) == 1 {
		return folded[0]
	}
	return nil
}

// SuggestTools returns up to n qualified names of tools close to name,
// judged against both their qualified and their bare names.
func (c *Catalog) SuggestTools(name string, n int) []string {
	candidates := make([]string, 0, 2*len(c.Tools))
	for _, t := range c.Tools {
		candidates = append(candidates, t.Name, t.LocalName)
	}
	var out []string
	for _, i := range search.Suggest(name, candidates, 2*n) {
		q := c.Tools[i/2].Name
		if !containsString(out, q) {
			out = append(out, q)
		}
		if len(out) == n {
			break
		}
	}
	return out
}

func qualifiedNames(ts []*Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "'" + s + "'"
	}
	return out
}

// orList joins items as "a", "a or b", "a, b or c".
func orList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
