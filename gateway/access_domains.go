package gateway

import (
	"fmt"
	"strings"
)

// CheckAccessDomains reports an Allow or Deny glob of rule that can match
// no item of a gateway whose domains are these: one that spells out a
// domain (the part before its first '.', with no wildcard in it) that is
// none of them, a misspelt domain most likely, and one with neither a '.'
// nor a wildcard, which no qualified name (domain.tool, ...) can match.
// Such a glob would hide a domain from everyone (allow) or hide nothing
// (deny) without a word.
func CheckAccessDomains(rule AccessRule, domains []string) error {
	known := make(map[string]bool, len(domains))
	for _, d := range domains {
		known[strings.ToLower(d)] = true
	}
	for _, list := range []struct {
		option string
		globs  []string
	}{{"allow", rule.Allow}, {"deny", rule.Deny}} {
		for _, g := range list.globs {
			lit := literalPrefix(g)
			domain, _, dotted := strings.Cut(lit, ".")
			switch {
			case lit == g && !dotted:
				return fmt.Errorf("%s %q can match nothing: access globs match qualified names such as crm.%s; write %q for that name in any domain", list.option, g, g, "*."+g)
			case dotted && !known[strings.ToLower(domain)]:
				return fmt.Errorf("%s %q names domain %q, which is none of this gateway's upstreams (%s)", list.option, g, domain, upstreamList(domains))
			}
		}
	}
	return nil
}

// upstreamList names the domains for an error: "crm, docs", or "none".
func upstreamList(domains []string) string {
	if len(domains) == 0 {
		return "it has none"
	}
	return strings.Join(domains, ", ")
}
