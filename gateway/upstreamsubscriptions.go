package gateway

import (
	"context"
	"sync"
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
// subscribe or unsubscribe counts nothing.
func (u *Upstream) CountSubscriber(ctx context.Context, uri string, delta int) error {
	c := &u.subscribers
	c.mu.Lock()
	defer c.mu.Unlock()
	before := c.n[uri]
	after := max(before+delta, 0)
	if (before > 0) != (after > 0) {
		var err error
		if delta > 0 {
			err = u.Subscribe(ctx, uri)
		} else {
			err = u.Unsubscribe(ctx, uri)
		}
		if err != nil {
			return err
		}
	}
	if after == 0 {
		delete(c.n, uri)
		return nil
	}
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[uri] = after
	return nil
}
