package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveEdge serves tg's gateway through an HTTP edge made with opts.
func serveEdge(t *testing.T, tg *testGateway, opts EdgeOptions) *httptest.Server {
	t.Helper()
	e, err := tg.NewEdge(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(e)
	t.Cleanup(ts.Close)
	return ts
}

// post sends one JSON-RPC body with headers and returns the status and
// the body.
func post(t *testing.T, url, body string, headers map[string]string) (int, string) {
	t.Helper()
	h := http.Header{}
	for k, v := range headers {
		h.Set(k, v)
	}
	resp, answer := postHeader(t, url, body, h)
	return resp.StatusCode, answer
}

// postHeader sends one JSON-RPC body with h (a header may have several
// values), as a streamable-HTTP client does, and returns the response
// with its body read.
func postHeader(t *testing.T, url, body string, h http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, vs := range h {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// statelessCall is a tools/call body of the stateless revision.
func statelessCall(id int, tool string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"query":"echo"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, id, tool)
}

func TestEdgeServesBothEras(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("echo", serveHTTP(t, echoServer()).URL)}})
	ts := serveEdge(t, tg, EdgeOptions{})

	// 2026-07-28: no handshake, no session.
	status, body := post(t, ts.URL, statelessCall(1, DiscoverToolsName), map[string]string{
		"Mcp-Protocol-Version": StatelessRevision, "Mcp-Method": "tools/call", "Mcp-Name": DiscoverToolsName})
	if status != http.StatusOK || !strings.Contains(body, "echo.echo") {
		t.Errorf("a 2026-07-28 discover_tools call: %d %s", status, body)
	}

	// An earlier revision: the go-sdk client does the initialize handshake
	// and gets a session.
	for _, version := range []string{"2025-11-25", "2025-06-18", "2025-03-26"} {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "old"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: ts.URL}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		if cs.ID() == "" || cs.InitializeResult().ProtocolVersion != version {
			t.Errorf("%s: session %q at %s", version, cs.ID(), cs.InitializeResult().ProtocolVersion)
		}
		cs.Close()
	}

	// The go-sdk client of today discovers and speaks 2026-07-28.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "new"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != StatelessRevision || cs.ID() != "" {
		t.Errorf("a discovering client got %s with session %q", v, cs.ID())
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "echo.echo", "arguments": map[string]any{}}})
	if err != nil || res.IsError {
		t.Fatalf("execute_tool at 2026-07-28: %v %v", err, res)
	}
}

func TestEdgeRefusesRoutingHeadersThatDisagreeWithTheBody(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("echo", serveHTTP(t, echoServer()).URL)}})
	var identified atomic.Int64
	ts := serveEdge(t, tg, EdgeOptions{Identify: func(*http.Request) (Caller, error) {
		identified.Add(1)
		return Caller{}, nil
	}})
	v := StatelessRevision
	for _, tc := range []struct {
		name    string
		body    string
		headers map[string]string
	}{
		{"name differs", statelessCall(1, ExecuteToolName), map[string]string{"Mcp-Protocol-Version": v, "Mcp-Method": "tools/call", "Mcp-Name": DiscoverToolsName}},
		{"method differs", statelessCall(2, ExecuteToolName), map[string]string{"Mcp-Protocol-Version": v, "Mcp-Method": "tools/list", "Mcp-Name": ExecuteToolName}},
		{"version differs", statelessCall(3, ExecuteToolName), map[string]string{"Mcp-Protocol-Version": "2025-11-25", "Mcp-Method": "tools/call", "Mcp-Name": ExecuteToolName}},
		{"no method header", statelessCall(4, ExecuteToolName), map[string]string{"Mcp-Protocol-Version": v, "Mcp-Name": ExecuteToolName}},
		{"no name header", statelessCall(5, ExecuteToolName), map[string]string{"Mcp-Protocol-Version": v, "Mcp-Method": "tools/call"}},
		{"no version header", statelessCall(6, ExecuteToolName), map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": ExecuteToolName}},
		// An earlier revision needs no routing headers, but one it sends
		// must be true.
		{"earlier revision, name differs", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"execute_tool"}}`, map[string]string{"Mcp-Name": "discover_tools"}},
	} {
		status, body := post(t, ts.URL, tc.body, tc.headers)
		var resp struct {
			ID    any
			Error struct {
				Code    int
				Message string
			}
		}
		_ = json.Unmarshal([]byte(body), &resp)
		if status != http.StatusBadRequest || resp.Error.Code != CodeHeaderMismatch || resp.ID == nil {
			t.Errorf("%s: %d %s, want 400 with JSON-RPC error %d and the request's id", tc.name, status, body, CodeHeaderMismatch)
		}
	}
	if n := identified.Load(); n != 0 {
		t.Errorf("requests with false routing headers reached Identify %d times; they must be refused before", n)
	}
}

func TestEdgeFillsRoutingHeadersForEarlierRevisions(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("echo", serveHTTP(t, echoServer()).URL)}})
	var mu sync.Mutex
	var seen []string
	ts := serveEdge(t, tg, EdgeOptions{Identify: func(r *http.Request) (Caller, error) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Mcp-Method")+" "+r.Header.Get("Mcp-Name"))
		mu.Unlock()
		return Caller{}, nil
	}})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "old"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: ts.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: DiscoverToolsName, Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !containsString(seen, "tools/call discover_tools") || !containsString(seen, "initialize ") {
		t.Errorf("the access matchers saw %q; want the routing headers filled in from the body", seen)
	}
}

func TestEdgeBindsSessionsToTheirCaller(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("echo", serveHTTP(t, echoServer()).URL)}})
	ts := serveEdge(t, tg, EdgeOptions{Identify: func(r *http.Request) (Caller, error) {
		return Caller{User: r.Header.Get("X-User")}, nil
	}})
	alice := &http.Client{Transport: headerTransport{"X-User": "alice"}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "alice"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: alice}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"discover_tools","arguments":{}}}`
	for _, user := range []string{"bob", ""} {
		status, body := post(t, ts.URL, call, map[string]string{"Mcp-Session-Id": cs.ID(), "Mcp-Protocol-Version": "2025-11-25", "X-User": user})
		if status != http.StatusNotFound {
			t.Errorf("%q used alice's session: %d %s", user, status, body)
		}
	}
	status, _ := post(t, ts.URL, call, map[string]string{"Mcp-Session-Id": cs.ID(), "Mcp-Protocol-Version": "2025-11-25", "X-User": "alice"})
	if status != http.StatusOK {
		t.Errorf("alice could not use her own session: %d", status)
	}
}

func TestEdgeSessionLimitsAreExactUnderConcurrency(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("echo", serveHTTP(t, echoServer()).URL)}})
	const limit, perIdentity = 30, 10
	ts := serveEdge(t, tg, EdgeOptions{MaxSessions: limit, MaxSessionsPerIdentity: perIdentity, Identify: func(r *http.Request) (Caller, error) {
		return Caller{User: r.Header.Get("X-User")}, nil
	}})
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	open := func(user string, n int) (opened int) {
		var wg sync.WaitGroup
		var count atomic.Int64
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if status, _ := post(t, ts.URL, initialize, map[string]string{"X-User": user}); status == http.StatusOK {
					count.Add(1)
				}
			}()
		}
		wg.Wait()
		return int(count.Load())
	}
	if got := open("mallory", 50); got != perIdentity {
		t.Errorf("one caller opened %d sessions at once, want exactly %d (max_sessions_per_identity)", got, perIdentity)
	}
	total := perIdentity
	for _, user := range []string{"a", "b", "c", "d"} {
		total += open(user, 12)
	}
	if total != limit {
		t.Errorf("%d sessions opened in all, want exactly %d (max_sessions)", total, limit)
	}
	if n := tg.SessionCount(); n != limit {
		t.Errorf("SessionCount = %d, want %d", n, limit)
	}
}

// echoServer is an upstream with one tool, echo.
func echoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo"}, nil)
	addTextTool(s, "echo", "Echo the message back", "echoed")
	return s
}

// headerTransport sets fixed headers on every request.
type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestEdgeServesEachRequestByItsOwnPolicy: a policy chosen per request
// (a stricter one for tools/call, by the Mcp-Method the edge fills in) holds
// for a client of an earlier revision too, whose session began under
// another policy: the session carries on, and the call is judged by the
// call's policy.
func TestEdgeServesEachRequestByItsOwnPolicy(t *testing.T) {
	tg := startGatewayWith(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("rich", serveHTTP(t, richServer()).URL)}},
		Options{Access: []AccessRule{{}, {Deny: []string{"rich.fail"}}}})
	ts := serveEdge(t, tg, EdgeOptions{Identify: func(r *http.Request) (Caller, error) {
		policy := 0
		if r.Header.Get("Mcp-Method") == "tools/call" {
			policy = 1
		}
		return Caller{Policy: policy, User: "bob"}, nil
	}})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "old"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: ts.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ok, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "rich.add", "arguments": map[string]any{"a": 1, "b": 2}}})
	if err != nil || ok.IsError {
		t.Fatalf("a call the calls policy allows: %v %v", err, ok)
	}
	hidden, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "rich.fail"}})
	if err != nil || !hidden.IsError || hidden.Meta[ErrorMetaKey] != string(ErrUnknownTool) {
		t.Errorf("a call the calls policy hides: %v %v, want unknown_tool", err, hidden)
	}
}

// TestEdgeFreesThePlaceOfASessionEndedEarly: a session its client
// ends before notifications/initialized gives its place back at once.
func TestEdgeFreesThePlaceOfASessionEndedEarly(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("echo", serveHTTP(t, echoServer()).URL)}})
	ts := serveEdge(t, tg, EdgeOptions{MaxSessions: 1})
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(initialize))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" || tg.SessionCount() != 1 {
		t.Fatalf("initialize: session %q, %d sessions", id, tg.SessionCount())
	}
	del, _ := http.NewRequest(http.MethodDelete, ts.URL, nil)
	del.Header.Set("Mcp-Session-Id", id)
	del.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if resp, err := http.DefaultClient.Do(del); err != nil || resp.StatusCode/100 != 2 {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	if n := tg.SessionCount(); n != 0 {
		t.Errorf("%d sessions counted after the only one was ended", n)
	}
	if status, body := post(t, ts.URL, initialize, nil); status != http.StatusOK {
		t.Errorf("a new session after the first ended: %d %s", status, body)
	}
}
