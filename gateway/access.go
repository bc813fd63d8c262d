package gateway

import (
	"path"
	"slices"
	"strings"
)

// AccessRule says which items of the catalog a request may see and use:
// those whose qualified name (see ItemName) matches an Allow glob (every
// item, if Allow is empty), minus those matching a Deny glob. Items are
// tools, prompts, resources and resource templates; a domain is visible
// when some item of it is. Which rule applies to a request is the
// embedding server's choice (Caddy picks it with request matchers); each
// rule gets a view of its own (see view.go).
//
// Globs are path.Match patterns, except that * and ? also match '/', so
// that a glob reaches resource URIs: "crm.*" is everything of domain crm,
// "*_delete" every tool named so, "docs.resource:file:///srv/public/*" some
// of docs' resources.
//
// A resource template the rule shows gives the URIs it covers, except
// those the rule hides: a URI a deny glob names as a resource
// (domain.resource:uri), and a resource the upstream lists that the rule
// does not allow. They cannot be read, subscribed to or completed to
// through the template.
type AccessRule struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// Item kinds, as qualified names spell them after the domain.
const (
	kindPrompt   = "prompt:"
	kindResource = "resource:"
	kindTemplate = "template:"
)

// ItemName is the qualified name access rules match an item by:
//
//	tool               domain.tool
//	prompt             domain.prompt:name
//	resource           domain.resource:uri
//	resource template  domain.template:uri-template
//
// kind is "tool", "prompt", "resource" or "template".
func ItemName(domain, kind, name string) string {
	switch kind {
	case "prompt":
		return domain + "." + kindPrompt + name
	case "resource":
		return domain + "." + kindResource + name
	case "template":
		return domain + "." + kindTemplate + name
	}
	return domain + "." + name
}

// Allows reports whether the rule lets a request see and use the item
// with this qualified name.
func (r AccessRule) Allows(qualified string) bool {
	return r.allowsAny(qualified)
}

// allowsAny reports whether the rule lets a request see the item known
// by any of these qualified names (a tool's catalog name and, where the
// catalog renamed it, the upstream's own): no Deny glob matches any of
// them, and an Allow glob, if there are any, matches one.
func (r AccessRule) allowsAny(names ...string) bool {
	if len(r.Allow) > 0 && !slices.ContainsFunc(names, func(n string) bool { return matchAccess(r.Allow, n) }) {
		return false
	}
	return !slices.ContainsFunc(names, func(n string) bool { return matchAccess(r.Deny, n) })
}

// denies reports whether a Deny glob of the rule matches qualified.
func (r AccessRule) denies(qualified string) bool {
	return matchAccess(r.Deny, qualified)
}

// matchAccess reports whether an access glob matches qualified name q, as
// matchGlob, with the domain before the first '.' of each compared
// ignoring case: domains are unique ignoring case, and "CRM.*" names crm.
func matchAccess(globs []string, q string) bool {
	folded := foldDomain(q)
	for _, g := range globs {
		if matchGlob(g, q) || matchGlob(foldDomain(g), folded) {
			return true
		}
	}
	return false
}

// foldDomain is s with the part before its first '.' in lower case.
func foldDomain(s string) string {
	if i := strings.IndexByte(s, '.'); i > 0 {
		return strings.ToLower(s[:i]) + s[i:]
	}
	return s
}

// allowsAll reports whether the rule hides nothing.
func (r AccessRule) allowsAll() bool {
	return len(r.Deny) == 0 && (len(r.Allow) == 0 || containsString(r.Allow, "*"))
}

// allowsUnknownDomain reports whether a domain none of whose items are
// known (its upstream has never answered) is shown to the rule's requests:
// when some Allow glob could match an item of it, and no Deny glob
// certainly hides all of them. Once the upstream answers, its items decide.
func (r AccessRule) allowsUnknownDomain(domain string) bool {
	if len(r.Allow) > 0 {
		allowed := false
		for _, g := range r.Allow {
			if globMayMatchDomain(g, domain) {
				allowed = true
				break
			}
		}
		if !allowed {
			return false
		}
	}
	for _, g := range r.Deny {
		if globHidesDomain(g, domain) {
			return false
		}
	}
	return true
}

// globMayMatchDomain reports whether glob could match some item name of
// the domain: its literal beginning, up to the first wildcard, is a prefix
// of "domain." or the other way round.
func globMayMatchDomain(glob, domain string) bool {
	lit := literalPrefix(foldDomain(glob))
	d := strings.ToLower(domain) + "."
	if len(lit) <= len(d) {
		return d[:len(lit)] == lit
	}
	return lit[:len(d)] == d
}

// globHidesDomain reports whether glob matches every item name of the
// domain: it is a literal that "domain." starts with, then a single *
// that ends it ("*", "crm*", "crm.*").
func globHidesDomain(glob, domain string) bool {
	glob = foldDomain(glob)
	lit := literalPrefix(glob)
	return glob == lit+"*" && strings.HasPrefix(strings.ToLower(domain)+".", lit)
}

// literalPrefix is glob up to its first wildcard or escape.
func literalPrefix(glob string) string {
	if i := strings.IndexAny(glob, `*?[\`); i >= 0 {
		return glob[:i]
	}
	return glob
}

// ValidateAccessRules reports the first bad glob of the rules.
func ValidateAccessRules(rules []AccessRule) error {
	for _, r := range rules {
		if err := validateGlobs(r.Allow); err != nil {
			return err
		}
		if err := validateGlobs(r.Deny); err != nil {
			return err
		}
	}
	return nil
}

// globSlash stands in for '/' while matching, so that path.Match's * and
// ? match it too: no item name holds this character (U+2215 DIVISION
// SLASH would be refused by SEP-986 tool names and is not in URIs as is).
const globSlash = "\u2215"

// matchGlob reports whether name matches glob, * and ? matching '/' too.
func matchGlob(glob, name string) bool {
	if strings.Contains(glob, "/") || strings.Contains(name, "/") {
		glob, name = strings.ReplaceAll(glob, "/", globSlash), strings.ReplaceAll(name, "/", globSlash)
	}
	ok, _ := path.Match(glob, name)
	return ok
}
