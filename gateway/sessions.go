package gateway

import (
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionTable knows which identity created each client session (so that
// a session ID presented under another identity is refused) and keeps the
// number of sessions under its limits exactly, also when many clients open
// sessions at once: a request that may create a session reserves a place
// before it is served, and gives it back if no session came of it.
// Entries go when their session ends.
type sessionTable struct {
	mu         sync.Mutex
	byID       map[string]string // session ID -> identity
	byIdentity map[string]int    // identity -> sessions open or reserved
	reserved   int               // places reserved by requests being served
	edgeOf     map[string]*Edge  // session ID -> the edge that created it
	stop       chan struct{}
}

// sweepEvery is how often bindings of sessions that ended without ever
// being initialized are dropped.
const sweepEvery = time.Minute

// errSessionLimit is why a request may not open one more session.
type errSessionLimit struct {
	limit       int
	perIdentity bool
}

func (e errSessionLimit) Error() string {
	if e.perIdentity {
		return fmt.Sprintf("you already have %d sessions open on this MCP gateway, subscriptions/listen streams included, the most one caller may have (max_sessions_per_identity); close unused sessions or streams, or retry later", e.limit)
	}
	return fmt.Sprintf("this MCP gateway already serves %d client sessions, its limit (max_sessions), subscriptions/listen streams included; close unused sessions or streams, or retry later", e.limit)
}

// reserve takes a place for a session identity may open, within max
// sessions in all and maxPerIdentity for one identity (0: no limit). The
// returned function ends the reservation: with the ID of the session the
// request created, it binds that session to identity (and to the edge
// that created it, if any); with "", it frees the place.
func (t *sessionTable) reserve(identity string, max, maxPerIdentity int, edge *Edge) (settle func(id string), err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byID == nil {
		t.byID = make(map[string]string)
		t.byIdentity = make(map[string]int)
		t.edgeOf = make(map[string]*Edge)
	}
	if max > 0 && len(t.byID)+t.reserved >= max {
		return nil, errSessionLimit{limit: max}
	}
	if maxPerIdentity > 0 && t.byIdentity[identity] >= maxPerIdentity {
		return nil, errSessionLimit{limit: maxPerIdentity, perIdentity: true}
	}
	t.reserved++
	t.byIdentity[identity]++
	var once sync.Once
	return func(id string) {
		once.Do(func() {
			t.mu.Lock()
			defer t.mu.Unlock()
			t.reserved--
			if _, dup := t.byID[id]; id == "" || dup {
				t.release(identity)
				return
			}
			t.byID[id] = identity
			if edge != nil {
				t.edgeOf[id] = edge
			}
		})
	}, nil
}

// release gives back one place of identity's. Called with t.mu held.
func (t *sessionTable) release(identity string) {
	if t.byIdentity[identity]--; t.byIdentity[identity] <= 0 {
		delete(t.byIdentity, identity)
	}
}

// drop forgets a session that ended.
func (t *sessionTable) drop(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if identity, ok := t.byID[id]; ok {
		delete(t.byID, id)
		delete(t.edgeOf, id)
		t.release(identity)
	}
}

// madeByEdge reports whether edge created session id.
func (t *sessionTable) madeByEdge(id string, edge *Edge) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.edgeOf[id] == edge
}

// madeBy lists the sessions open that edge created.
func (t *sessionTable) madeBy(edge *Edge) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ids []string
	for id, e := range t.edgeOf {
		if e == edge {
			ids = append(ids, id)
		}
	}
	return ids
}

// owner returns the identity a session was bound to.
func (t *sessionTable) owner(id string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	identity, ok := t.byID[id]
	return identity, ok
}

// SessionCount is the number of client sessions open.
func (g *Gateway) SessionCount() int {
	t := &g.sessions
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID)
}

// watch drops a session's binding when the session ends.
func (t *sessionTable) watch(ss *mcp.ServerSession) {
	go func() {
		_ = ss.Wait()
		t.drop(ss.ID())
	}()
}

// start sweeps, now and then, the bindings of sessions no view serves any
// more (sessions that ended before they were initialized).
func (t *sessionTable) start(g *Gateway) {
	t.stop = make(chan struct{})
	go func() {
		tick := time.NewTicker(sweepEvery)
		defer tick.Stop()
		for {
			select {
			case <-t.stop:
				return
			case <-tick.C:
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
			t.mu.Lock()
			for id, identity := range t.byID {
				if !alive[id] {
					delete(t.byID, id)
					delete(t.edgeOf, id)
					t.release(identity)
				}
			}
			t.mu.Unlock()
		}
	}()
}

func (t *sessionTable) close() {
	if t.stop != nil {
		close(t.stop)
	}
}
