package gateway

import (
	"sort"
	"strings"
	"sync"
	"time"
)

// SearchMiss is a search query that found nothing, or only weak matches:
// a sign that a tool's description lacks the words models use for it.
type SearchMiss struct {
	Query string    `json:"query"`
	Weak  bool      `json:"weak"` // results, but weak ones; else none
	Count int       `json:"count"`
	Last  time.Time `json:"last"`
}

// maxSearchMisses bounds the misses kept; the least recent go first.
const maxSearchMisses = 200

// searchMisses keeps the recent SearchMisses, by query (case and outer
// space ignored).
type searchMisses struct {
	mu      sync.Mutex
	byQuery map[string]*SearchMiss
}

func (m *searchMisses) add(query string, weak bool) {
	key := strings.ToLower(strings.TrimSpace(query))
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byQuery == nil {
		m.byQuery = make(map[string]*SearchMiss)
	}
	miss, ok := m.byQuery[key]
	if !ok {
		if len(m.byQuery) >= maxSearchMisses {
			var oldest string
			for k, v := range m.byQuery {
				if oldest == "" || v.Last.Before(m.byQuery[oldest].Last) {
					oldest = k
				}
			}
			delete(m.byQuery, oldest)
		}
		miss = &SearchMiss{Query: query}
		m.byQuery[key] = miss
	}
	miss.Weak, miss.Last = weak, time.Now()
	miss.Count++
}

// SearchMisses are the recent queries that found nothing or only weak
// matches, most recent first.
func (g *Gateway) SearchMisses() []SearchMiss {
	m := &g.misses
	m.mu.Lock()
	out := make([]SearchMiss, 0, len(m.byQuery))
	for _, v := range m.byQuery {
		out = append(out, *v)
	}
	m.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Last.After(out[j].Last) })
	return out
}
