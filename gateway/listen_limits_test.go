package gateway

import (
	"net/http"
	"strings"
	"testing"
)

// TestListenStreamsCountAsSessions: a 2026-07-28 client has no session,
// but a subscriptions/listen stream is held open like one, with an MCP
// server session of its own behind it for as long as it lasts. It counts
// against max_sessions and max_sessions_per_identity while it is open, so
// that such a client cannot hold more open than an earlier client could
// sessions, nor take every place from the others; its place comes back
// when it ends.
func TestListenStreamsCountAsSessions(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("echo", serveHTTP(t, echoServer()).URL)}})
	ts := serveEdge(t, tg, EdgeOptions{MaxSessions: 3, MaxSessionsPerIdentity: 2, Identify: func(r *http.Request) (Caller, error) {
		return Caller{User: r.Header.Get("X-User")}, nil
	}})
	as := func(user string) http.Header { return http.Header{"X-User": {user}} }
	const changes = `{"toolsListChanged":true}`
	var open []func()
	defer func() {
		for _, end := range open {
			end()
		}
	}()
	for range 2 {
		end, status, answer := listen(t, ts.URL, changes, as("mallory"))
		if end == nil {
			t.Fatalf("mallory's listen stream, within her share: %d %s", status, answer)
		}
		open = append(open, end)
	}
	end, status, answer := listen(t, ts.URL, changes, as("mallory"))
	if end != nil {
		open = append(open, end)
		t.Errorf("mallory held a third listen stream open, over max_sessions_per_identity 2")
	} else if status != http.StatusServiceUnavailable || !strings.Contains(answer, "max_sessions_per_identity") {
		t.Errorf("mallory's third listen stream: %d %s; want 503 naming max_sessions_per_identity", status, answer)
	}
	end, status, answer = listen(t, ts.URL, changes, as("alice"))
	if end == nil {
		t.Fatalf("alice's listen stream, the last place: %d %s", status, answer)
	}
	open = append(open, end)
	end, status, answer = listen(t, ts.URL, changes, as("bob"))
	if end != nil {
		open = append(open, end)
		t.Errorf("bob held a listen stream open over max_sessions 3")
	} else if status != http.StatusServiceUnavailable || !strings.Contains(answer, "max_sessions") {
		t.Errorf("bob's listen stream over max_sessions: %d %s; want 503 naming max_sessions", status, answer)
	}
	open[0]()
	open = open[1:]
	waitFor(t, "the ended stream's place given back", func() bool {
		end, _, _ := listen(t, ts.URL, changes, as("bob"))
		if end != nil {
			open = append(open, end)
		}
		return end != nil
	})
}
