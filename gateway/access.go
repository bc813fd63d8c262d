package gateway

import "path"

// AccessRule says which tools a request may see and call: those whose
// qualified name ("domain.tool") matches an Allow glob (every tool, if
// Allow is empty), minus those matching a Deny glob. Which rule applies to
// a request is the embedding server's choice (Caddy picks it with request
// matchers); each rule gets a view of its own (see view.go).
type AccessRule struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// Allows reports whether the rule lets a request see and call the tool
// with this qualified name.
func (r AccessRule) Allows(qualified string) bool {
	if len(r.Allow) > 0 && !matchAny(r.Allow, qualified) {
		return false
	}
	return !matchAny(r.Deny, qualified)
}

// allowsAll reports whether the rule hides nothing.
func (r AccessRule) allowsAll() bool {
	return len(r.Deny) == 0 && (len(r.Allow) == 0 || containsString(r.Allow, "*"))
}

// allowsDomain reports whether the rule could allow some tool of the
// domain: a domain whose tools are not known yet (it is down) is shown to
// the requests that may use some of it, hidden from the others.
func (r AccessRule) allowsDomain(domain string) bool {
	probe := domain + ".*"
	if len(r.Allow) > 0 {
		allowed := false
		for _, g := range r.Allow {
			if ok, _ := path.Match(g, probe); ok || globMayMatchDomain(g, domain) {
				allowed = true
				break
			}
		}
		if !allowed {
			return false
		}
	}
	for _, g := range r.Deny {
		if g == "*" || g == probe {
			return false
		}
	}
	return true
}

// globMayMatchDomain reports whether glob could match some tool name of
// the domain: its literal beginning, up to the first wildcard, is a prefix
// of "domain." or the other way round.
func globMayMatchDomain(glob, domain string) bool {
	lit := glob
	for i, c := range glob {
		if c == '*' || c == '?' || c == '[' || c == '\\' {
			lit = glob[:i]
			break
		}
	}
	d := domain + "."
	if len(lit) <= len(d) {
		return d[:len(lit)] == lit
	}
	return lit[:len(d)] == d
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
