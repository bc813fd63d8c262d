package gateway

import "time"

// UpstreamReport is what an operator sees of one upstream (admin API,
// metrics, the operator page).
type UpstreamReport struct {
	Name  string `json:"name"`
	State string `json:"state"` // ready, connecting, unavailable, degraded, closed
	Tools int    `json:"tools"`
	// LastError is why the upstream is down or degraded, if it is.
	LastError   string    `json:"last_error,omitempty"`
	RefreshedAt time.Time `json:"refreshed_at,omitzero"`
	// Reconnects counts the sessions made after the first.
	Reconnects int64 `json:"reconnects"`
	// LatencyMS is recent calls' latency, exponentially weighted (0 before
	// the first call).
	LatencyMS float64 `json:"latency_ms"`
	Transport string  `json:"transport"`
	// Notices say what the gateway did to the upstream's lists (see
	// vet.go): texts flagged or stripped as instructions to the model,
	// tools left out.
	Notices []string `json:"notices,omitempty"`
}

// latencyWeight is the weight of the newest call in Upstream's latency
// average.
const latencyWeight = 0.2

// recordLatency folds a successful call's duration into the average.
func (u *Upstream) recordLatency(d time.Duration) {
	for {
		old := u.latencyEWMA.Load()
		next := int64(d)
		if old != 0 {
			next = int64(latencyWeight*float64(d) + (1-latencyWeight)*float64(old))
		}
		if u.latencyEWMA.CompareAndSwap(old, next) {
			return
		}
	}
}

// Upstreams reports on the gateway's upstreams, in config order.
func (g *Gateway) Upstreams() []UpstreamReport {
	s := g.current()
	var notices map[string][]string
	if n := g.notices.Load(); n != nil {
		notices = *n
	}
	out := make([]UpstreamReport, 0, len(s.upstreams))
	for i, u := range s.upstreams {
		st := u.Status()
		r := UpstreamReport{
			Name:        s.cfg.Upstreams[i].Name,
			State:       st.State.String(),
			Tools:       len(st.Tools),
			RefreshedAt: st.RefreshedAt,
			Reconnects:  max(u.connects.Load()-1, 0),
			LatencyMS:   float64(u.latencyEWMA.Load()) / float64(time.Millisecond),
			Transport:   u.conn.TransportName(),
			Notices:     notices[s.cfg.Upstreams[i].Name],
		}
		if limit := s.cfg.ToolLimit(); limit > 0 {
			r.Tools = min(r.Tools, limit) // a connection keeps one past the limit (SetToolLimit)
		}
		if st.LastError != nil && st.State != StateReady {
			r.LastError = boundedText(st.LastError.Error())
		}
		out = append(out, r)
	}
	return out
}
