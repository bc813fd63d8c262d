package gateway

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// metaToolsTTL is how long a client may keep meta mode's tools/list: the
// three meta-tools change only with a config reload that changes the
// mode, and a client listening for changes hears of that at once.
const metaToolsTTL = 5 * 60 * 1000

// Cache scopes of the stateless revision (SEP-2549).
const (
	cacheScopePublic  = "public"
	cacheScopePrivate = "private"
)

// cacheHints returns the ServerOptions.SetCacheable of a view's server in
// mode: cache hints that are true. A list or a discover result that depends
// on the caller's access policy is never public; a passthrough list is
// fresh only as it is sent (ttlMs 0: an upstream may change its lists at any
// moment), while meta mode's three meta-tools keep for metaToolsTTL; a
// resource read keeps the upstream's TTL (a negative one, which the
// stateless revision forbids a server to send, as 0), and is public only
// when the upstream said so and every caller sees the same resources.
func (v *view) cacheHints(mode string) func(context.Context, mcp.Request, *mcp.Cacheable) {
	return func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
		perCaller := !v.g.current().sameForEveryone()
		switch req.(type) {
		case *mcp.ReadResourceRequest:
			c.TTLMs = max(c.TTLMs, 0)
			if perCaller || c.CacheScope != cacheScopePublic {
				c.CacheScope = cacheScopePrivate
			}
			return
		case *mcp.ListToolsRequest:
			if mode == ModeMeta {
				c.TTLMs, c.CacheScope = metaToolsTTL, cacheScopePublic
				return
			}
		}
		c.TTLMs, c.CacheScope = 0, cacheScopePublic
		if perCaller {
			c.CacheScope = cacheScopePrivate
		}
	}
}

// sameForEveryone reports whether every request sees the same catalog:
// there is one access rule and it hides nothing.
func (s *setup) sameForEveryone() bool {
	return len(s.rules) == 1 && s.rules[0].allowsAll()
}
