package gateway

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// BreakerThreshold is how many calls in a row must go unanswered within
// the upstream's timeout before the circuit opens: the upstream is marked
// degraded, calls to it fail at once, and pings probe it until it answers
// again. A connection that fails outright does not wait for this: it is
// down at once, and reconnected.
const BreakerThreshold = 3

// Probe interval bounds while the circuit is open.
const (
	minProbeInterval = time.Second
	maxProbeInterval = 30 * time.Second
)

// breaker counts the calls on the current session that got no answer in
// time. Its fields are under Upstream.mu.
type breaker struct {
	timeouts int // in a row, on session
	session  *mcp.ClientSession
}

// recordCall updates the breaker with a call's outcome on session: err is
// what the call returned, and timedOut tells whether the upstream's own
// timeout (not the caller's) ended it. On the threshold-th timeout in a
// row the upstream becomes degraded and the run loop starts probing.
func (u *Upstream) recordCall(session *mcp.ClientSession, err error, timedOut bool) {
	u.mu.Lock()
	if u.breaker.session != session {
		u.breaker = breaker{session: session}
	}
	switch {
	case timedOut:
		u.breaker.timeouts++
	case err == nil || peerAnswered(err):
		u.breaker.timeouts = 0
	}
	open := u.breaker.timeouts >= BreakerThreshold && u.status.State == StateReady && u.session == session
	n := u.breaker.timeouts
	u.mu.Unlock()
	if !open {
		return
	}
	reason := fmt.Errorf("%d calls in a row got no answer within %s", n, u.conn.CallTimeout())
	u.logger.Warn("upstream not answering; failing its calls fast and probing it", errField(reason))
	u.setStatus(func(s *UpstreamStatus) { s.State, s.LastError = StateDegraded, reason })
	select {
	case u.degraded <- session:
	default:
	}
}

// probe pings a degraded upstream's session, with backoff, until it
// answers (the circuit closes: the upstream is ready again), the session
// ends (ended closes), or the connection fails (the run loop is told, and
// reconnects).
func (u *Upstream) probe(session *mcp.ClientSession, ended <-chan struct{}) {
	interval := minProbeInterval
	for {
		if !waitUnlessAsked(interval, minProbeInterval, u.probeNow, ended) {
			return
		}
		ctx, cancel := context.WithTimeout(u.ctx, u.conn.CallTimeout())
		err := session.Ping(ctx, nil)
		cancel()
		if err == nil || peerAnswered(err) {
			u.logger.Info("upstream answers again; calls go through")
			u.setStatus(func(s *UpstreamStatus) {
				if u.session == session && s.State == StateDegraded {
					u.breaker = breaker{session: session}
					s.State, s.LastError = StateReady, nil
				}
			})
			return
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			select {
			case u.broken <- brokenSession{session, err}:
			default:
			}
			return
		}
		u.logger.Debug("upstream still not answering", errField(err), zap.Duration("next_probe_in", interval))
		interval = min(interval*2, maxProbeInterval)
	}
}
