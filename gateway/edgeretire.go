package gateway

import "sync"

// Retire ends the sessions e created, for an edge that another has
// replaced (a reload changed what only a new edge can change, such as the
// session timeout): requests now go to the new edge, which knows none of
// them, so their clients start new sessions, and the old ones would
// otherwise linger until they timed out, holding their places among
// MaxSessions and their own upstream sessions (stdio processes). A session
// ends at once if no request of its is being served, else as soon as the
// last one ends, so that calls in flight finish; its GET stream does not
// count. Sessions the edge creates afterwards (a request it had already
// taken) end as soon as they are made.
func (e *Edge) Retire() {
	r := &e.retiring
	r.mu.Lock()
	r.done = true
	var idle []string
	for _, id := range e.g.sessions.madeBy(e) {
		if r.busy[id] == 0 {
			idle = append(idle, id)
		}
	}
	r.mu.Unlock()
	e.g.closeSessions(idle...)
}

// edgeRetirement is what Retire needs: whether the edge is retired, and
// the requests of each session being served (but GET streams).
type edgeRetirement struct {
	mu   sync.Mutex
	done bool
	busy map[string]int
}

func (r *edgeRetirement) retired() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.done
}

// enterSession counts a request of session id in; the returned function
// counts it out, and ends the session if it is one of e's, e is retired
// and that was the session's last request.
func (e *Edge) enterSession(id string) (leave func()) {
	r := &e.retiring
	r.mu.Lock()
	if r.busy == nil {
		r.busy = map[string]int{}
	}
	r.busy[id]++
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		r.busy[id]--
		last := r.busy[id] <= 0
		if last {
			delete(r.busy, id)
		}
		retired := r.done
		r.mu.Unlock()
		if last && retired && e.g.sessions.madeByEdge(id, e) {
			e.g.closeSessions(id)
		}
	}
}

// closeSessions ends the client sessions with these IDs.
func (g *Gateway) closeSessions(ids ...string) {
	if len(ids) == 0 {
		return
	}
	wanted := make(map[string]bool, len(ids))
	for _, id := range ids {
		wanted[id] = true
	}
	for _, v := range g.allViews() {
		for _, srv := range v.allServers() {
			for ss := range srv.Sessions() {
				if wanted[ss.ID()] {
					_ = ss.Close()
				}
			}
		}
	}
}
