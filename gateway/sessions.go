package gateway

import (
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionBindings remembers which identity created each client session,
// so that a session ID presented under another identity can be refused
// (see BindSession). Entries go when their session ends.
type sessionBindings struct {
	mu   sync.Mutex
	byID map[string]string
	stop chan struct{}
}

// sweepEvery is how often bindings of sessions that ended without ever
// being initialized are dropped.
const sweepEvery = time.Minute

// BindSession records that the client session with this ID belongs to
// identity (whatever the embedding server uses to tell callers apart).
func (g *Gateway) BindSession(id, identity string) {
	b := &g.sessions
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byID == nil {
		b.byID = make(map[string]string)
	}
	b.byID[id] = identity
}

// SessionCount is the number of client sessions open: those bound with
// BindSession that have not ended.
func (g *Gateway) SessionCount() int {
	b := &g.sessions
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.byID)
}

// SessionIdentity returns the identity a client session was bound to.
func (g *Gateway) SessionIdentity(id string) (string, bool) {
	b := &g.sessions
	b.mu.Lock()
	defer b.mu.Unlock()
	identity, ok := b.byID[id]
	return identity, ok
}

// watch drops a session's binding when the session ends.
func (b *sessionBindings) watch(ss *mcp.ServerSession) {
	go func() {
		_ = ss.Wait()
		b.mu.Lock()
		delete(b.byID, ss.ID())
		b.mu.Unlock()
	}()
}

// start sweeps, now and then, the bindings of sessions no view serves any
// more (sessions that ended before they were initialized).
func (b *sessionBindings) start(g *Gateway) {
	b.stop = make(chan struct{})
	go func() {
		t := time.NewTicker(sweepEvery)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-t.C:
			}
			alive := make(map[string]bool)
			for _, v := range g.allViews() {
				v.dropIdleServers()
				for _, srv := range v.allServers() {
					for ss := range srv.Sessions() {
						alive[ss.ID()] = true
					}
				}
			}
			b.mu.Lock()
			for id := range b.byID {
				if !alive[id] {
					delete(b.byID, id)
				}
			}
			b.mu.Unlock()
		}
	}()
}

func (b *sessionBindings) close() {
	if b.stop != nil {
		close(b.stop)
	}
}
