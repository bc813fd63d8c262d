package e2e

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// chaosCall is one execute_tool call of the chaos test's load.
type chaosCall struct {
	upstream   string
	start, end time.Time
	code       string // "" for success, else the gateway's error code
	text       string
}

func (c chaosCall) took() time.Duration { return c.end.Sub(c.start) }

// chaosLoad runs, per client session and per upstream, a loop of
// execute_tool calls until stop closes, and records every call.
type chaosLoad struct {
	mu    sync.Mutex
	calls []chaosCall
	wg    sync.WaitGroup
}

func (l *chaosLoad) run(cs *mcp.ClientSession, upstream, tool string, stop <-chan struct{}) {
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			c := chaosCall{upstream: upstream, start: time.Now()}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_tool", Arguments: map[string]any{"tool_name": tool}})
			cancel()
			c.end = time.Now()
			switch {
			case err != nil:
				c.code, c.text = "client_error", err.Error()
			case res.IsError:
				c.code, _ = res.Meta["io.github.caddy-mcp/error"].(string)
				if c.code == "" {
					c.code = "tool_error"
				}
				c.text = res.Content[0].(*mcp.TextContent).Text
			}
			l.mu.Lock()
			l.calls = append(l.calls, c)
			l.mu.Unlock()
			time.Sleep(20 * time.Millisecond) // a load, not a flood
		}
	}()
}

// between returns the calls to upstream that started in [from, to).
func (l *chaosLoad) between(upstream string, from, to time.Time) []chaosCall {
	return l.filter(upstream, func(c chaosCall) bool { return !c.start.Before(from) && c.start.Before(to) })
}

// within returns the calls to upstream that started at or after from and
// ended before to.
func (l *chaosLoad) within(upstream string, from, to time.Time) []chaosCall {
	return l.filter(upstream, func(c chaosCall) bool { return !c.start.Before(from) && c.end.Before(to) })
}

func (l *chaosLoad) filter(upstream string, keep func(chaosCall) bool) []chaosCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []chaosCall
	for _, c := range l.calls {
		if c.upstream == upstream && keep(c) {
			out = append(out, c)
		}
	}
	return out
}

// firstSuccess is when the first call to upstream that started after from
// succeeded, or the zero time.
func (l *chaosLoad) firstSuccess(upstream string, from time.Time) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	var first time.Time
	for _, c := range l.calls {
		if c.upstream == upstream && c.code == "" && !c.start.Before(from) && (first.IsZero() || c.end.Before(first)) {
			first = c.end
		}
	}
	return first
}

func median(calls []chaosCall) time.Duration {
	if len(calls) == 0 {
		return 0
	}
	d := make([]time.Duration, len(calls))
	for i, c := range calls {
		d[i] = c.took()
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

func failures(calls []chaosCall) (n int, first string) {
	for _, c := range calls {
		if c.code != "" {
			if n == 0 {
				first = c.code + ": " + c.text
			}
			n++
		}
	}
	return n, first
}

// TestChaos runs a real Caddy in front of three upstreams (two HTTP
// servers and a stdio one) under a load of concurrent clients, then kills
// one upstream and restarts it, and hangs another (SIGSTOP) and resumes
// it. Calls to healthy upstreams never fail; calls to the dead one fail
// fast with the "temporarily unavailable" error and succeed again within a
// few seconds of its restart; calls to the hung one time out as
// configured, then fail fast while the circuit is open; no client
// reconnects.
func TestChaos(t *testing.T) {
	killedURL, killed := testenv.StartEverythingServer(t)
	hungURL, hung := testenv.StartEverythingServer(t)
	memFile := filepath.Join(t.TempDir(), "mem.jsonl")
	caddy := testenv.StartCaddy(t, fmt.Sprintf(`{
	admin 127.0.0.1:{ADMIN_PORT}
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	mcp_gateway /mcp {
		upstream killed %s {
			timeout 5s
		}
		upstream hung %s {
			timeout 2s
		}
		upstream mem {
			command node {NODE_DIR}/node_modules/@modelcontextprotocol/server-memory/dist/index.js
			env MEMORY_FILE_PATH %s
		}
	}
}
`, killedURL, hungURL, memFile))

	const clients = 6
	tools := map[string]string{"killed": "killed.test_simple_text", "hung": "hung.test_simple_text", "mem": "mem.read_graph"}
	var sessions []*mcp.ClientSession
	var ids []string
	for range clients {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "chaos"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: caddy.URL("/mcp")}, testenv.SessionOptions())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		sessions, ids = append(sessions, cs), append(ids, cs.ID())
	}
	load := &chaosLoad{}
	stop := make(chan struct{})
	for _, cs := range sessions {
		for upstream, tool := range tools {
			load.run(cs, upstream, tool, stop)
		}
	}
	stopLoad := sync.OnceFunc(func() { close(stop); load.wg.Wait() })
	t.Cleanup(stopLoad)

	// Healthy.
	t0 := time.Now()
	time.Sleep(2 * time.Second)

	// Kill one upstream; restart it on the same port after a while.
	tKill := time.Now()
	syscall.Kill(-killed.Cmd.Process.Pid, syscall.SIGKILL)
	<-killed.Exited()
	time.Sleep(4 * time.Second)
	u, _ := url.Parse(killedURL)
	port, _ := strconv.Atoi(u.Port())
	tRestart := time.Now()
	testenv.StartEverythingServerOn(t, port)
	time.Sleep(4 * time.Second)

	// Hang another; resume it after a while. SIGSTOP takes effect
	// asynchronously, and the test's goroutine may be descheduled between
	// reading the clock and sending it, so a call that starts before
	// tStopped may still be answered.
	tHang := time.Now()
	syscall.Kill(hung.Cmd.Process.Pid, syscall.SIGSTOP)
	tStopped := time.Now().Add(100 * time.Millisecond)
	time.Sleep(7 * time.Second)
	tResume := time.Now()
	syscall.Kill(hung.Cmd.Process.Pid, syscall.SIGCONT)
	time.Sleep(4 * time.Second)
	tEnd := time.Now()
	stopLoad()

	total, failed := len(load.calls), 0
	for _, c := range load.calls {
		if c.code != "" {
			failed++
		}
	}
	t.Logf("calls sent: %d, failed: %d (all failures are calls to the killed or hung upstream while it was gone)", total, failed)

	// The healthy upstreams, and each one while it is healthy, never fail
	// (calls in flight when an upstream is killed or hung are its own).
	for _, check := range []struct {
		upstream string
		from, to time.Time
	}{
		{"mem", t0, tEnd}, {"killed", t0, tKill}, {"hung", t0, tHang},
		{"hung", tKill, tHang}, {"killed", tHang, tEnd},
	} {
		calls := load.within(check.upstream, check.from, check.to)
		if n, first := failures(calls); n > 0 || len(calls) == 0 {
			t.Errorf("%s, %s to %s: %d of %d calls failed; first: %s", check.upstream,
				check.from.Sub(t0).Round(time.Millisecond), check.to.Sub(t0).Round(time.Millisecond), n, len(calls), first)
		}
	}

	// The killed upstream: calls fail fast with the clear error.
	down := load.between("killed", tKill.Add(time.Second), tRestart)
	for _, c := range down {
		if c.code != "unavailable" || !strings.Contains(c.text, "temporarily unavailable: upstream server 'killed' is unreachable. Other domains are still available.") {
			t.Errorf("call to the dead upstream: %s %s", c.code, c.text)
			break
		}
	}
	if len(down) == 0 || median(down) > 100*time.Millisecond {
		t.Errorf("%d calls to the dead upstream, median %s; want them to fail at once", len(down), median(down))
	}
	back := load.firstSuccess("killed", tRestart)
	if back.IsZero() || back.Sub(tRestart) > 5*time.Second {
		t.Errorf("the restarted upstream was not called successfully within 5s (first success %v after the restart)", back.Sub(tRestart))
	}
	t.Logf("killed upstream: %d calls failed fast while down (median %s); calls succeed again %s after its restart",
		len(down), median(down).Round(time.Microsecond), back.Sub(tRestart).Round(time.Millisecond))

	// The hung upstream: calls time out as configured (2s), then fail
	// fast once the circuit opens.
	var timedOut, fast []chaosCall
	for _, c := range load.between("hung", tHang.Add(-time.Second), tResume.Add(-2500*time.Millisecond)) {
		switch {
		case c.end.Before(tHang) || c.code == "" && c.start.Before(tStopped):
			// Answered before (or as) the upstream stopped.
		case c.code == "timeout" && c.took() >= 1900*time.Millisecond && c.took() < 3*time.Second && strings.Contains(c.text, "did not answer within 2s"):
			timedOut = append(timedOut, c)
		case c.code == "unavailable" && strings.Contains(c.text, "upstream server 'hung' is not answering. Other domains are still available."):
			fast = append(fast, c)
		default:
			t.Errorf("call to the hung upstream: %s after %s: %s", c.code, c.took(), c.text)
		}
	}
	if len(timedOut) == 0 || len(fast) == 0 || median(fast) > 100*time.Millisecond {
		t.Errorf("hung upstream: %d calls timed out, %d failed fast (median %s); want both, fast ones at once", len(timedOut), len(fast), median(fast))
	}
	resumed := load.firstSuccess("hung", tResume)
	if resumed.IsZero() || resumed.Sub(tResume) > 5*time.Second {
		t.Errorf("the resumed upstream was not called successfully within 5s")
	}
	t.Logf("hung upstream: %d calls timed out after 2s, then %d failed fast (median %s); calls succeed again %s after it resumed",
		len(timedOut), len(fast), median(fast).Round(time.Microsecond), resumed.Sub(tResume).Round(time.Millisecond))

	for i, cs := range sessions {
		if cs.ID() != ids[i] {
			t.Errorf("client %d reconnected: session %s, then %s", i, ids[i], cs.ID())
		}
	}
}
