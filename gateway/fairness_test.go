package gateway

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCallSlotsKeepAShareForOthers(t *testing.T) {
	s := newCallSlots(4, 0)
	if s.perIdentity != 2 {
		t.Fatalf("default share of 4 = %d, want 2", s.perIdentity)
	}
	bob := context.WithValue(context.Background(), slotIdentityKey{}, "0/bob")
	var held []func()
	for range 2 {
		release, err := s.acquire(bob)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, release)
	}
	short, cancel := context.WithTimeout(bob, 50*time.Millisecond)
	defer cancel()
	if _, err := s.acquire(short); err == nil {
		t.Fatal("bob got a third slot of 4 with a share of 2")
	} else if busy, ok := err.(*BusyError); !ok || !busy.PerIdentity {
		t.Fatalf("bob's third call: %v, want a per-identity busy error", err)
	}
	alice := context.WithValue(context.Background(), slotIdentityKey{}, "0/alice")
	for range 2 {
		release, err := s.acquire(alice)
		if err != nil {
			t.Fatalf("alice found no slot while bob holds his share: %v", err)
		}
		held = append(held, release)
	}
	anonymous, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	if _, err := s.acquire(anonymous); err == nil {
		t.Fatal("a fifth call got one of 4 slots")
	}
	for _, release := range held {
		release()
	}
	if len(s.mine) != 0 || len(s.users) != 0 {
		t.Errorf("identities left after every call ended: %v %v", s.mine, s.users)
	}
}

// TestWaitingForASlotIsNotTheUpstreamsFailure: a call that waited most of
// its timeout for a slot still gets the whole timeout on the upstream, so
// that one caller's slow calls neither time the others out nor make the
// breaker take the upstream for unhealthy.
func TestWaitingForASlotIsNotTheUpstreamsFailure(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "paced"}, nil)
	sleeper := func(d time.Duration) mcp.ToolHandler {
		return func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-time.After(d):
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		}
	}
	obj := map[string]any{"type": "object"}
	s.AddTool(&mcp.Tool{Name: "slow", InputSchema: obj}, sleeper(500*time.Millisecond))
	s.AddTool(&mcp.Tool{Name: "steady", InputSchema: obj}, sleeper(200*time.Millisecond))
	up := httpUpstream("paced", serveHTTP(t, s).URL)
	up.Timeout = Duration(600 * time.Millisecond)
	up.MaxConcurrentCalls = 1
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{up}})
	u := tg.Catalog().Domain("paced").upstream
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = u.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}}, nil)
	}()
	time.Sleep(50 * time.Millisecond) // slow holds the only slot for ~450ms more
	var failed atomic.Int64
	for range BreakerThreshold {
		res, err := u.CallTool(context.Background(), &mcp.CallToolParams{Name: "steady", Arguments: map[string]any{}}, nil)
		if err != nil || res.IsError {
			failed.Add(1)
			t.Errorf("a call that waited for the slot: %v", err)
		}
	}
	wg.Wait()
	if st := u.Status().State; st != StateReady {
		t.Errorf("the upstream is %s after calls that waited for a slot", st)
	}
}

// TestPerClientSessionsAreBounded: a per_client upstream gives at most
// MaxClientSessions clients a session of their own; one more gets a busy
// error, and a place frees when a client's session ends.
func TestPerClientSessionsAreBounded(t *testing.T) {
	up := httpUpstream("own", serveHTTP(t, echoServer()).URL)
	up.Session, up.MaxClientSessions = SessionPerClient, 2
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{up}})
	connect := func() *mcp.ClientSession {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := tg.Server().Connect(context.Background(), st, nil); err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	call := func(cs *mcp.ClientSession) *mcp.CallToolResult {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "own.echo"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first, second, third := connect(), connect(), connect()
	if call(first).IsError || call(second).IsError {
		t.Fatal("the first two clients could not call")
	}
	if res := call(third); !res.IsError || res.Meta[ErrorMetaKey] != string(ErrBusy) {
		t.Fatalf("a third client got %v, want a busy error", text(res))
	}
	first.Close()
	deadline := time.Now().Add(5 * time.Second)
	for call(third).IsError {
		if time.Now().After(deadline) {
			t.Fatal("the third client got no place after the first one left")
		}
		time.Sleep(50 * time.Millisecond)
	}
	second.Close()
	third.Close()
}

// userHeader is a RoundTripper that sends every request as user.
type userHeader struct{ user string }

func (u userHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-User", u.user)
	return http.DefaultTransport.RoundTrip(r)
}

// TestPerClientSessionsKeepToTheirCallersShare: one caller with many
// sessions holds at most half (rounded up) of a per_client upstream's
// MaxClientSessions; another caller still gets a session of its own.
func TestPerClientSessionsKeepToTheirCallersShare(t *testing.T) {
	up := httpUpstream("own", serveHTTP(t, echoServer()).URL)
	up.Session, up.MaxClientSessions = SessionPerClient, 4
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{up}})
	ts := serveEdge(t, tg, EdgeOptions{Identify: func(r *http.Request) (Caller, error) {
		return Caller{User: r.Header.Get("X-User")}, nil
	}})
	call := func(user string) string {
		transport := &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &http.Client{Transport: userHeader{user}}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: user}, nil).Connect(context.Background(), transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "own.echo"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			return text(res)
		}
		return "ok"
	}
	var outcomes []string
	for range 3 {
		outcomes = append(outcomes, call("mallory"))
	}
	if outcomes[0] != "ok" || outcomes[1] != "ok" || !strings.Contains(outcomes[2], "busy for you") {
		t.Errorf("mallory's three sessions' calls: %q; want two ok, then busy for her (her share of max_client_sessions 4)", outcomes)
	}
	if got := call("alice"); got != "ok" {
		t.Errorf("alice, after mallory took her share: %s", got)
	}
}
