package e2e

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSoakSessions opens 1,000 client sessions against a real Caddy, calls
// a tool on each, and closes them all: Caddy's goroutines and in-use heap
// (read from its admin endpoint) return to where they started. (The idle
// keep-alive connections the gateway pools to its HTTP upstream are not
// counted: the pool keeps up to 512 per upstream for 90 s, by design.)
func TestSoakSessions(t *testing.T) {
	everythingURL, _ := testenv.StartEverythingServer(t)
	caddy := testenv.StartCaddy(t, loopbackGateway("upstream ev "+everythingURL))
	transport := &http.Transport{MaxIdleConnsPerHost: 100}
	httpClient := &http.Client{Transport: transport}
	open := func() *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "soak"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: caddy.URL("/mcp"), HTTPClient: httpClient}, testenv.SessionOptions())
		if err != nil {
			t.Error(err)
			return nil
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute_tool", Arguments: map[string]any{"tool_name": "ev.test_simple_text"}})
		if err != nil || res.IsError {
			t.Errorf("call on a new session: %v %+v", err, res)
		}
		return cs
	}
	// openAll opens n sessions, 50 at a time, calling a tool on each.
	openAll := func(n int) []*mcp.ClientSession {
		all := make([]*mcp.ClientSession, n)
		var wg sync.WaitGroup
		sem := make(chan struct{}, 50)
		for i := range all {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				all[i] = open()
			}()
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		return all
	}
	closeAll := func(all []*mcp.ClientSession) {
		var wg sync.WaitGroup
		sem := make(chan struct{}, 50)
		for _, cs := range all {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				cs.Close()
			}()
		}
		wg.Wait()
		transport.CloseIdleConnections()
	}
	// Warm up with as many sessions as the measured round: the upstream
	// connection, maps and pools grown once, the profiler's records of the
	// code paths, and the Go runtime's goroutine descriptors, which it
	// keeps for reuse once a program has had that many goroutines (about
	// 4,000 here; under the race detector they held 1-4 MiB after a
	// smaller warm-up). Then measure where things start.
	const sessions = 1000
	closeAll(openAll(sessions))
	startGoroutines := settledGoroutines(t, caddy.AdminPort, 0, 2*time.Second)
	startHeap := caddyHeapInUse(t, caddy.AdminPort)

	began := time.Now()
	all := openAll(sessions)
	opened := time.Since(began)
	openGoroutines := caddyGoroutines(t, caddy.AdminPort)
	openHeap := caddyHeapInUse(t, caddy.AdminPort)
	closeAll(all)

	endGoroutines := settledGoroutines(t, caddy.AdminPort, startGoroutines+5, 15*time.Second)
	endHeap := caddyHeapInUse(t, caddy.AdminPort)
	t.Logf("%d sessions opened (and a tool called on each) in %s", sessions, opened.Round(time.Millisecond))
	t.Logf("Caddy goroutines (idle pooled upstream connections aside): %d at the start, %d with %d sessions open (all), %d after they closed", startGoroutines, openGoroutines, sessions, endGoroutines)
	t.Logf("Caddy heap in use: %.1f MiB at the start, %.1f MiB with %d sessions open, %.1f MiB after they closed",
		mib(startHeap), mib(openHeap), sessions, mib(endHeap))
	if endGoroutines > startGoroutines+5 {
		t.Errorf("goroutines: %d after the sessions closed, %d before", endGoroutines, startGoroutines)
	}
	if endHeap > startHeap+4<<20 {
		t.Errorf("heap in use: %.1f MiB after the sessions closed, %.1f MiB before", mib(endHeap), mib(startHeap))
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
