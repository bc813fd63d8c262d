package gateway

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hangableServer serves a server whose "work" tool answers at once, or
// never (until the call is cancelled, or the test ends) while hang is set.
// Pings answer or hang likewise: a stuck process stops answering
// everything.
func hangableServer(t *testing.T, hang *atomic.Bool) *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "hangable"}, nil)
	testEnded := make(chan struct{})
	stall := func(ctx context.Context) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-testEnded:
			return errors.New("the test ended")
		}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "work", Description: "Do some work."}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if hang.Load() {
			return nil, nil, stall(ctx)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "ping" && hang.Load() {
				return nil, stall(ctx)
			}
			return next(ctx, method, req)
		}
	})
	ts := serveHTTP(t, s)
	t.Cleanup(func() { close(testEnded) }) // before ts closes, which waits for handlers
	return ts
}

func TestBreakerOpensOnTimeoutsAndProbesBack(t *testing.T) {
	var hang atomic.Bool
	up := httpUpstream("slow", hangableServer(t, &hang).URL)
	up.Timeout = Duration(300 * time.Millisecond)
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{up, httpUpstream("rich", serveHTTP(t, richServer()).URL)}})
	work := map[string]any{"tool_name": "slow.work"}

	hang.Store(true)
	for i := range BreakerThreshold {
		start := time.Now()
		msg := callError(t, tg, ExecuteToolName, work, ErrTimeout)
		if !strings.Contains(msg, "did not answer within 300ms") || time.Since(start) < 250*time.Millisecond {
			t.Fatalf("hung call %d: %q after %s", i+1, msg, time.Since(start))
		}
	}
	waitFor(t, "the hung upstream marked degraded", func() bool {
		return tg.Catalog().Domain("slow").State == StateDegraded
	})
	start := time.Now()
	msg := callError(t, tg, ExecuteToolName, work, ErrUnavailable)
	if elapsed := time.Since(start); elapsed > 100*time.Millisecond {
		t.Errorf("a call to a degraded upstream took %s; it should fail at once", elapsed)
	}
	if msg != "Tool 'slow.work' is temporarily unavailable: upstream server 'slow' is not answering. Other domains are still available." {
		t.Errorf("degraded error = %q", msg)
	}
	domains := callJSON[domainsResponse](t, tg, DiscoverToolsName, nil)
	if domains.Domains[0].Status != "degraded" || domains.Domains[1].Status != "" || !strings.Contains(domains.Note, "Temporarily unavailable: slow") {
		t.Errorf("discover_tools() = %+v", domains)
	}
	if got := text(tg.call(t, ExecuteToolName, map[string]any{"tool_name": "rich.add", "arguments": map[string]any{"a": 2, "b": 2}})); got != "4" {
		t.Errorf("the other upstream is affected: %q", got)
	}

	hang.Store(false)
	waitFor(t, "the probe closing the circuit", func() bool {
		return tg.Catalog().Domain("slow").State == StateReady
	})
	if got := text(tg.call(t, ExecuteToolName, work)); got != "done" {
		t.Errorf("after recovery slow.work = %q", got)
	}
}

func TestToolTimeoutOverridesTheUpstreams(t *testing.T) {
	var hang atomic.Bool
	hang.Store(true)
	up := httpUpstream("slow", hangableServer(t, &hang).URL)
	up.Timeout = Duration(10 * time.Second)
	up.Tools = map[string]ToolOverride{"work": {Timeout: Duration(200 * time.Millisecond)}}
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{up}})
	start := time.Now()
	msg := callError(t, tg, ExecuteToolName, map[string]any{"tool_name": "slow.work"}, ErrTimeout)
	if elapsed := time.Since(start); elapsed > 5*time.Second || !strings.Contains(msg, "within 200ms") {
		t.Errorf("call with a 200ms tool timeout: %q after %s", msg, elapsed)
	}
}

// swappableHandler serves whatever handler it holds now.
type swappableHandler struct{ h atomic.Pointer[http.Handler] }

func (s *swappableHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*s.h.Load()).ServeHTTP(w, r)
}

func (s *swappableHandler) set(h http.Handler) { s.h.Store(&h) }

func TestForgottenUpstreamSessionIsReinitialisedAndTheCallRetried(t *testing.T) {
	newHandler := func() http.Handler {
		s := mcp.NewServer(&mcp.Implementation{Name: "forgetful"}, nil)
		addTextTool(s, "hello", "Say hello.", "hello")
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	}
	var sh swappableHandler
	sh.set(newHandler())
	ts := httptest.NewServer(&sh)
	t.Cleanup(ts.Close)
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("f", ts.URL)}})
	call := map[string]any{"tool_name": "f.hello"}
	if got := text(tg.call(t, ExecuteToolName, call)); got != "hello" {
		t.Fatalf("f.hello = %q", got)
	}
	// The upstream restarts behind the same address: it has no sessions,
	// and answers the gateway's session ID with 404.
	sh.set(newHandler())
	for i := range 3 {
		if res := tg.call(t, ExecuteToolName, call); res.IsError || text(res) != "hello" {
			t.Fatalf("call %d after the upstream forgot the session: %s", i+1, text(res))
		}
	}
}

func TestDownUpstreamComesBackSoonAfterItRestarts(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	serve := func(l net.Listener) *httptest.Server {
		ts := httptest.NewUnstartedServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return richServer() }, nil))
		ts.Listener.Close()
		ts.Listener = l
		ts.Start()
		return ts
	}
	ts := serve(l)
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("rich", "http://"+addr)}})
	add := map[string]any{"tool_name": "rich.add", "arguments": map[string]any{"a": 1, "b": 2}}
	ts.CloseClientConnections()
	ts.Close()
	waitFor(t, "the upstream marked down", func() bool {
		tg.call(t, ExecuteToolName, add) // a call finds the connection broken
		return tg.Catalog().Domain("rich").State == StateDown
	})
	// Down long enough for the backoff to grow past several seconds.
	time.Sleep(6 * time.Second)
	if l, err = net.Listen("tcp", addr); err != nil {
		t.Fatalf("listening again on %s: %v", addr, err)
	}
	restarted := time.Now()
	back := serve(l)
	t.Cleanup(func() { back.CloseClientConnections(); back.Close() })
	for {
		res := tg.call(t, ExecuteToolName, add)
		if !res.IsError {
			break
		}
		if res.Meta[ErrorMetaKey] != string(ErrUnavailable) {
			t.Fatalf("unexpected error while the upstream comes back: %s", text(res))
		}
		if time.Since(restarted) > 3*time.Second {
			t.Fatalf("calls still fail %s after the upstream restarted", time.Since(restarted))
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("calls succeed again %s after the upstream restarted", time.Since(restarted).Round(time.Millisecond))
}
