package gateway

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A passthrough call the upstream does not answer in time is a tool
// error that names the timeout, as execute_tool's is, not a bare
// "context deadline exceeded"; the metrics count it as a timeout.
func TestPassthroughTimeoutSaysWhichTimeout(t *testing.T) {
	var hang atomic.Bool
	hang.Store(true)
	up := httpUpstream("slow", hangableServer(t, &hang).URL)
	up.Timeout = Duration(300 * time.Millisecond)
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{up}})
	msg := callError(t, tg, "slow_work", nil, ErrTimeout)
	if !strings.Contains(msg, "Tool 'slow.work' did not answer within 300ms") {
		t.Errorf("passthrough timeout: %q", msg)
	}
}
