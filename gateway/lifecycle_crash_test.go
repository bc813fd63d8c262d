package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressingServer has one tool, work, that reports progress and then
// runs until cancelled; started is signalled when it has reported.
func progressingServer(started chan<- struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "worker"}, nil)
	s.AddTool(&mcp.Tool{Name: "work", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 10})
		}
		select {
		case started <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	return s
}

// TestUpstreamCrashFailsTheCallInFlight: an upstream crashes (its
// connections cut, and it comes back knowing no session) while a call
// that reported progress is in flight. The client gets an error well
// before the call's timeout, and nothing is left of the call: no
// progress route, no call counted in flight.
func TestUpstreamCrashFailsTheCallInFlight(t *testing.T) {
	for _, session := range []string{SessionShared, SessionPerClient} {
		t.Run(session, func(t *testing.T) {
			started := make(chan struct{}, 1)
			var sh swappableHandler
			serve := func() {
				s := progressingServer(started)
				sh.set(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
			}
			serve()
			ts := httptest.NewServer(&sh)
			t.Cleanup(ts.Close)
			up := httpUpstream("w", ts.URL)
			up.Timeout = Duration(20 * time.Second)
			up.Session = session
			tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{up}})
			var progress atomic.Int32
			cs := connectIn(t, tg.Server(), mcp.NewClient(&mcp.Implementation{Name: "c"}, &mcp.ClientOptions{
				ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progress.Add(1) },
			}))
			done := make(chan error, 1)
			began := time.Now()
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				params := &mcp.CallToolParams{Name: "w_work", Arguments: map[string]any{}}
				params.SetProgressToken("p1")
				res, err := cs.CallTool(ctx, params)
				if err == nil && !res.IsError {
					t.Errorf("the call succeeded: %v", text(res))
				}
				if err == nil {
					t.Logf("tool error: %s", text(res))
				} else {
					t.Logf("error: %v", err)
				}
				done <- err
			}()
			<-started
			waitFor(t, "the client's progress", func() bool { return progress.Load() == 1 })
			serve()                     // the upstream comes back knowing no session...
			ts.CloseClientConnections() // ...after a crash that cut its connections
			select {
			case <-done:
				t.Logf("the call ended %v after it began", time.Since(began))
			case <-time.After(10 * time.Second):
				t.Fatal("the call in flight did not end within 10s of its upstream's crash (its timeout is 20s)")
			}
			var upstreams []*Upstream
			upstreams = append(upstreams, tg.Catalog().Domain("w").upstream)
			tg.clients.mu.Lock()
			for _, st := range tg.clients.byClient {
				for _, cu := range st.upstreams {
					upstreams = append(upstreams, cu.upstream)
				}
			}
			tg.clients.mu.Unlock()
			for _, u := range upstreams {
				n := 0
				u.progress.Range(func(any, any) bool { n++; return true })
				if n != 0 || u.inflight.Load() != 0 {
					t.Errorf("after the call ended: %d progress routes, %d calls in flight", n, u.inflight.Load())
				}
			}
		})
	}
}

// failingHandler answers 502 to every request while fail is set, counting
// them, and serves h otherwise.
type failingHandler struct {
	h     http.Handler
	fail  atomic.Bool
	count atomic.Int32
}

func (f *failingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.fail.Load() {
		f.count.Add(1)
		http.Error(w, "bad gateway", http.StatusBadGateway)
		return
	}
	f.h.ServeHTTP(w, r)
}

// TestUpstreamAnswering5xxFailsFast: an HTTP upstream whose every answer
// becomes 502 (a proxy in front of a dead server) is marked unavailable;
// calls to it fail at once with the unavailable error instead of each
// waiting for a timeout, while the gateway retries it at most about once
// per half second however many calls want it, and uses it again soon
// after it is back.
func TestUpstreamAnswering5xxFailsFast(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "flaky"}, nil)
	addTextTool(s, "hello", "Say hello.", "hello")
	fh := &failingHandler{h: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)}
	ts := httptest.NewServer(fh)
	t.Cleanup(ts.Close)
	up := httpUpstream("flaky", ts.URL)
	up.Timeout = Duration(5 * time.Second)
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{up}})
	call := map[string]any{"tool_name": "flaky.hello"}
	if got := text(tg.call(t, ExecuteToolName, call)); got != "hello" {
		t.Fatalf("control: %q", got)
	}
	fh.fail.Store(true)
	began := time.Now()
	var slowest time.Duration
	codes := map[any]int{}
	for time.Since(began) < 3*time.Second {
		start := time.Now()
		res := tg.call(t, ExecuteToolName, call)
		slowest = max(slowest, time.Since(start))
		codes[res.Meta[ErrorMetaKey]]++
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("outcomes %v, slowest %s, %d requests to the failing upstream in 3s", codes, slowest, fh.count.Load())
	if slowest > time.Second {
		t.Errorf("a call to an upstream answering 502 took %s", slowest)
	}
	if codes[string(ErrUnavailable)] == 0 {
		t.Errorf("outcomes %v: want the unavailable error", codes)
	}
	if n := fh.count.Load(); n > 20 {
		t.Errorf("%d requests to the failing upstream in 3s: retries are not bounded", n)
	}
	if st := tg.Catalog().Domain("flaky").State; st != StateDown {
		t.Errorf("the failing upstream's state is %s, want unavailable", st)
	}
	fh.fail.Store(false)
	if !within(5*time.Second, func() bool { return text(tg.call(t, ExecuteToolName, call)) == "hello" }) {
		t.Error("the upstream is not used again within 5s of its recovery")
	}
}
