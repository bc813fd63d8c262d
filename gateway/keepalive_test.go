package gateway

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// countingServer serves s over streamable HTTP (event-stream answers, as
// the SDK's default handler gives) and counts the TCP connections made to
// it.
func countingServer(t testing.TB, s *mcp.Server, opts *mcp.StreamableHTTPOptions) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	ts := httptest.NewUnstartedServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, opts))
	ts.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			conns.Add(1)
		}
	}
	ts.Start()
	t.Cleanup(ts.Close)
	return ts, &conns
}

// TestUpstreamConnectionSurvivesCalls: calls to an HTTP upstream that
// answers with event streams reuse the connection; the end of a call's
// stream is read to the end rather than cut off when the call returns
// (which would make the next call dial again).
func TestUpstreamConnectionSurvivesCalls(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *mcp.StreamableHTTPOptions
	}{
		{"sessioned upstream", nil},
		{"stateless upstream", &mcp.StreamableHTTPOptions{Stateless: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, conns := countingServer(t, echoServer(), tc.opts)
			tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("echo", ts.URL)}})
			tg.call(t, "execute_tool", map[string]any{"tool_name": "echo.echo", "arguments": map[string]any{"message": "hi"}})
			before := conns.Load()
			const calls = 300
			for range calls {
				tg.call(t, "execute_tool", map[string]any{"tool_name": "echo.echo", "arguments": map[string]any{"message": "hi"}})
			}
			if opened := conns.Load() - before; opened > calls/100 {
				t.Errorf("%d new connections to the upstream over %d calls, want at most %d", opened, calls, calls/100)
			}
		})
	}
}

// TestTimedOutCallEndsOnTime: a call whose upstream has not begun to
// answer when the call's timeout ends is cut off then, not held for the
// grace an answer's stream end gets.
func TestTimedOutCallEndsOnTime(t *testing.T) {
	var hang atomic.Bool
	hang.Store(true)
	up := httpUpstream("slow", hangableServer(t, &hang).URL)
	up.Tools = map[string]ToolOverride{"work": {Timeout: Duration(100 * time.Millisecond)}}
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{up}})
	start := time.Now()
	callError(t, tg, ExecuteToolName, map[string]any{"tool_name": "slow.work"}, ErrTimeout)
	if elapsed := time.Since(start); elapsed >= streamEndGrace {
		t.Errorf("a call with a 100ms timeout failed after %s; it must not wait for the %s an answer's stream end gets", elapsed, streamEndGrace)
	}
}
