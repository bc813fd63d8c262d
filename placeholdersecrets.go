package mcpgateway

import (
	"slices"
	"strings"

	"github.com/caddyserver/caddy/v2"
)

// placeholderSecrets resolves Caddy's global placeholders as the replacer
// it wraps does, and keeps the values of those that read the operator's
// secret stores, {env.*} and {file.*}: they are how credentials are kept
// out of a config, so a connection holding one keeps it secret wherever
// it stands (gateway.Connection.Secrets), not only in the fields the
// redactor knows for secrets.
type placeholderSecrets struct {
	repl    *caddy.Replacer // the wrapped replacer's placeholders, through record
	read    []string        // the values the current resolve read
	secrets []string
}

func newPlaceholderSecrets(global *caddy.Replacer) *placeholderSecrets {
	p := &placeholderSecrets{repl: caddy.NewEmptyReplacer()}
	p.repl.Map(func(key string) (any, bool) {
		v, ok := global.Get(key)
		if ok && (strings.HasPrefix(key, "env.") || strings.HasPrefix(key, "file.")) {
			p.read = append(p.read, caddy.ToString(v))
		}
		return v, ok
	})
	return p
}

// resolve is s with its known placeholders replaced. The values its
// {env.*} and {file.*} placeholders gave are kept as secrets, but those
// public says are none (given all of s resolved; nil: none is public).
func (p *placeholderSecrets) resolve(s string, public func(value, resolved string) bool) string {
	p.read = p.read[:0]
	s = p.repl.ReplaceKnown(s, "")
	for _, v := range p.read {
		if public == nil || !public(v, s) {
			p.secrets = append(p.secrets, v)
		}
	}
	return s
}

// list is the secrets kept, sorted and each once, so that the same config
// makes the same gateway.Connection.Key.
func (p *placeholderSecrets) list() []string {
	slices.Sort(p.secrets)
	return slices.Compact(p.secrets)
}
