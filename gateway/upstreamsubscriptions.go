package gateway

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// subscriberCounts are the clients subscribed to each URI on an upstream's
// shared session, whichever view or gateway (sharing the upstream through
// the pool) they came through.
type subscriberCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// CountSubscriber counts a client in (delta > 0) or out of the
// subscribers to uri on the upstream's session, which subscribes with the
// first client in and unsubscribes with the last one out. A failed
// subscribe counts nothing. A client is counted out even when the
// unsubscribe fails (the upstream is down, say), and the error returned:
// the connection is then no longer subscribed as far as the gateway is
// concerned, and its next session is not subscribed to uri (see
// resubscribe).
func (u *Upstream) CountSubscriber(ctx context.Context, uri string, delta int) error {
	c := &u.subscribers
	c.mu.Lock()
	defer c.mu.Unlock()
	before := c.n[uri]
	after := max(before+delta, 0)
	var err error
	if (before > 0) != (after > 0) {
		if delta > 0 {
			if err = u.Subscribe(ctx, uri); err != nil {
				return err
			}
		} else if err = u.Unsubscribe(ctx, uri); err != nil {
			u.subscribed.set(uri, false)
		}
	}
	if after == 0 {
		delete(c.n, uri)
		return err
	}
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[uri] = after
	return err
}

// subscribedURIs are the URIs an upstream connection is subscribed to
// (Subscribe, not yet Unsubscribe), whichever session they were
// subscribed on.
type subscribedURIs struct {
	mu   sync.Mutex
	uris map[string]bool
}

func (s *subscribedURIs) set(uri string, subscribed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !subscribed {
		delete(s.uris, uri)
		return
	}
	if s.uris == nil {
		s.uris = map[string]bool{}
	}
	s.uris[uri] = true
}

func (s *subscribedURIs) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.uris))
}

// resubscribe subscribes a new session, before any call uses it, to the
// URIs the connection is subscribed to: an upstream that restarted, or
// forgot the session, forgot its subscriptions with it, and the clients
// subscribed through the connection would hear of no update again. A URI
// the new session refuses is logged and stays on the list, for the next
// session.
func (u *Upstream) resubscribe(session *mcp.ClientSession) {
	uris := u.subscribed.list()
	if len(uris) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(u.ctx, u.conn.CallTimeout())
	defer cancel()
	for _, uri := range uris {
		if err := session.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			u.logger.Warn("subscribing the new upstream session to a resource clients are subscribed to", errField(err))
		}
	}
}

// count is the number of clients counted subscribed to uri.
func (c *subscriberCounts) count(uri string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[uri]
}
