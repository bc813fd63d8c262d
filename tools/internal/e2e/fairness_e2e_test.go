package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The third finding of the attack on the edge: one user could deny
// service to the others, by holding every call slot of an upstream (then
// the others' waits counted as the upstream's failures and opened its
// circuit breaker), by opening sessions until none were left, or by
// making a per_client stdio upstream start a process per session.

// connectGo connects the go-sdk client to url with headers sent on every
// request, at revision ("" for its default, 2026-07-28).
func connectGo(t *testing.T, url string, headers map[string]string, revision string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var opts *mcp.ClientSessionOptions
	if revision != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: revision}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fairness"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: authClient(headers)}, opts)
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// executeOutcome runs execute_tool and returns the result's text and its
// gateway error code ("" for a result that is not a gateway error).
func executeOutcome(cs *mcp.ClientSession, tool string, args map[string]any) (text, code string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_tool", Arguments: map[string]any{"tool_name": tool, "arguments": args}})
	if err != nil {
		return "", "", err
	}
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	code, _ = res.Meta["io.github.caddy-mcp/error"].(string)
	if res.IsError && code == "" {
		code = "tool_error"
	}
	return text, code, nil
}

// upstreamStates reads each upstream's state from Caddy's admin API, by
// "gateway/upstream" (an error instead, under "error").
func upstreamStates(adminPort int) map[string]string {
	var reports []struct {
		Name      string           `json:"name"`
		Upstreams []upstreamStatus `json:"upstreams"`
	}
	body, err := procs.AdminGet(adminPort, "/mcp_gateway/")
	if err == nil {
		err = json.Unmarshal([]byte(body), &reports)
	}
	if err != nil {
		return map[string]string{"error": err.Error()}
	}
	out := map[string]string{}
	for _, r := range reports {
		for _, u := range r.Upstreams {
			out[r.Name+"/"+u.Name] = u.State
		}
	}
	return out
}

// TestOneCallerCannotTakeAnUpstreamsSlots: with max_concurrent_calls 2 and
// a short timeout, bob keeps six slow calls going at all times, in both
// protocol eras. Only his share of the slots (one, the default half) runs
// at once; his other calls wait, then get a busy error naming his share.
// alice's calls meanwhile all succeed, and the upstream stays ready: no
// wait is counted against it, so its circuit breaker never opens. (Before
// the fix, bob's calls took both slots, alice's calls waited behind his,
// and calls that got a slot late timed out and opened the breaker.)
func TestOneCallerCannotTakeAnUpstreamsSlots(t *testing.T) {
	crm := startEchoFlavour(t, "crm")
	caddy := testenv.StartCaddy(t, `{
	admin 127.0.0.1:{ADMIN_PORT}
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	basic_auth {
`+testUsers+`
	}
	mcp_gateway /mcp {
		name fair
		upstream crm `+crm+` {
			timeout 3s
			max_concurrent_calls 2
		}
	}
}
`)
	url := caddy.URL("/mcp")
	const slow = 1800 // ms: less than the timeout, more than half of it
	flood := 6 * time.Second

	bobClients := []*mcp.ClientSession{
		connectGo(t, url, userHeaders("bob"), ""),
		connectGo(t, url, userHeaders("bob"), ""),
		connectGo(t, url, userHeaders("bob"), testenv.SessionRevision),
	}
	aliceClients := []*mcp.ClientSession{
		connectGo(t, url, userHeaders("alice"), testenv.SessionRevision),
		connectGo(t, url, userHeaders("alice"), ""),
	}
	if _, code, err := executeOutcome(aliceClients[0], "crm.people_search", map[string]any{"name": "ada"}); err != nil || code != "" {
		t.Fatalf("alice's first call: %q %v", code, err)
	}

	var mu sync.Mutex
	bobOutcomes := map[string]int{}
	var bobShare []string // busy errors' texts
	var aliceFailures []string
	states := map[string]int{}
	stop := time.Now().Add(flood)
	var wg sync.WaitGroup
	for i := range 2 * len(bobClients) {
		cs := bobClients[i%len(bobClients)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				text, code, err := executeOutcome(cs, "crm.sleep", map[string]any{"milliseconds": slow})
				mu.Lock()
				switch {
				case err != nil:
					bobOutcomes["protocol error: "+err.Error()]++
				case code == "":
					bobOutcomes["ok"]++
				default:
					bobOutcomes[code]++
					if code == "busy" {
						bobShare = append(bobShare, text)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Add(1)
	go func() { // the admin API's view of the upstream, all along
		defer wg.Done()
		for time.Now().Before(stop.Add(time.Second)) {
			st := upstreamStates(caddy.AdminPort)["fair/crm"]
			mu.Lock()
			states[st]++
			mu.Unlock()
			time.Sleep(100 * time.Millisecond)
		}
	}()
	time.Sleep(300 * time.Millisecond) // bob's calls take the slots first
	aliceCalls := 0
	for i := 0; time.Now().Before(stop); i++ {
		text, code, err := executeOutcome(aliceClients[i%2], "crm.people_search", map[string]any{"name": "ada"})
		aliceCalls++
		if err != nil || code != "" || text != "1 found" {
			aliceFailures = append(aliceFailures, fmt.Sprintf("%q %q %v", code, text, err))
		}
		time.Sleep(250 * time.Millisecond)
	}
	wg.Wait()

	t.Logf("bob's calls: %v; alice's calls: %d; upstream states seen: %v", bobOutcomes, aliceCalls, states)
	if len(aliceFailures) > 0 {
		t.Errorf("%d of alice's %d calls failed while bob held his calls: %v", len(aliceFailures), aliceCalls, aliceFailures)
	}
	if len(states) != 1 || states["ready"] == 0 {
		t.Errorf("the upstream's states during bob's calls: %v, want ready only (the breaker opened)", states)
	}
	if bobOutcomes["ok"] == 0 {
		t.Errorf("none of bob's slow calls succeeded: %v", bobOutcomes)
	}
	if len(bobShare) == 0 {
		t.Errorf("bob's calls beyond his share got no busy error: %v", bobOutcomes)
	}
	for _, msg := range bobShare {
		if !strings.Contains(msg, "busy for you") || !strings.Contains(msg, "your share of its concurrent calls") {
			t.Errorf("bob's busy error does not name his share: %s", msg)
			break
		}
	}
	for outcome := range bobOutcomes {
		if outcome != "ok" && outcome != "busy" {
			t.Errorf("bob's calls ended %q: %v", outcome, bobOutcomes)
		}
	}
}

// initializeStatuses sends n initialize requests at once to url as user,
// and counts the answers' statuses; it returns the session IDs opened.
func initializeStatuses(t *testing.T, url, user string, n int) (map[int]int, []string) {
	t.Helper()
	var mu sync.Mutex
	statuses := map[int]int{}
	var sessions []string
	var wg sync.WaitGroup
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, MaxConnsPerHost: 0}}
	defer client.CloseIdleConnections()
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeMessage))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", basic(user, user+"-password"))
			resp, err := client.Do(req)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				statuses[-1]++
				return
			}
			resp.Body.Close()
			statuses[resp.StatusCode]++
			if id := resp.Header.Get("Mcp-Session-Id"); id != "" && resp.StatusCode == http.StatusOK {
				sessions = append(sessions, id)
			}
		}()
	}
	wg.Wait()
	return statuses, sessions
}

// TestSessionLimitsHoldUnderConcurrency: bob opening 300 sessions at once
// with max_sessions_per_identity 20 gets exactly 20, and alice still opens
// hers; a session bob ends frees a place for him. max_sessions 30 admits
// exactly 30 of 60 initializes sent at once.
func TestSessionLimitsHoldUnderConcurrency(t *testing.T) {
	echo := testenv.EchoServer(t)
	caddy := testenv.StartCaddy(t, `{
	admin 127.0.0.1:{ADMIN_PORT}
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	basic_auth {
`+testUsers+`
	}
	mcp_gateway /mcp {
		name per_identity
		max_sessions_per_identity 20
		upstream echo `+echo+`
	}
	mcp_gateway /capped {
		name capped
		max_sessions 30
		upstream echo `+echo+`
	}
}
`)
	url := caddy.URL("/mcp")
	statuses, bobSessions := initializeStatuses(t, url, "bob", 300)
	t.Logf("bob's 300 initializes at once: %v", statuses)
	if statuses[http.StatusOK] != 20 || statuses[http.StatusServiceUnavailable] != 280 {
		t.Errorf("bob's 300 initializes at once: %v, want 20 answered 200 and 280 answered 503", statuses)
	}
	code, body := postAnswer(t, url, userHeaders("bob"), initializeMessage)
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "max_sessions_per_identity") {
		t.Errorf("bob's next initialize: %d %s, want 503 naming max_sessions_per_identity", code, body)
	}
	for i := range 5 {
		if code, body := postAnswer(t, url, userHeaders("alice"), initializeMessage); code != http.StatusOK {
			t.Errorf("alice's session %d after bob's flood: %d %s", i+1, code, body)
		}
	}
	if len(bobSessions) > 0 {
		// (A session is counted out when it ends once initialized; one
		// that never was is swept out within a minute.)
		session := map[string]string{"Authorization": basic("bob", "bob-password"), "Mcp-Session-Id": bobSessions[0], "MCP-Protocol-Version": testenv.SessionRevision}
		if code := rawPost(t, url, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); code != http.StatusAccepted {
			t.Errorf("bob's notifications/initialized: %d", code)
		}
		if code := rawDelete(t, url, session); code != http.StatusNoContent {
			t.Errorf("bob ending one of his sessions: %d", code)
		}
		code, body := 0, ""
		for deadline := time.Now().Add(5 * time.Second); code != http.StatusOK && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			code, body = postAnswer(t, url, userHeaders("bob"), initializeMessage)
		}
		if code != http.StatusOK {
			t.Errorf("bob's initialize after ending a session: %d %s", code, body)
		}
	}

	// max_sessions, exact when 60 initializes arrive at once (from three
	// users, none of them limited alone).
	total := map[int]int{}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, user := range []string{"alice", "bob", "carol"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, _ := initializeStatuses(t, caddy.URL("/capped"), user, 20)
			mu.Lock()
			defer mu.Unlock()
			for k, v := range s {
				total[k] += v
			}
		}()
	}
	wg.Wait()
	t.Logf("60 initializes at once under max_sessions 30: %v", total)
	if total[http.StatusOK] != 30 || total[http.StatusServiceUnavailable] != 30 {
		t.Errorf("60 initializes at once under max_sessions 30: %v, want exactly 30 answered 200 and 30 answered 503", total)
	}
}

// postAnswer sends one JSON-RPC message and returns the status and body.
func postAnswer(t *testing.T, url string, headers map[string]string, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil || b.Len() > 1<<16 {
			break
		}
	}
	return resp.StatusCode, b.String()
}

// TestPerClientStdioProcessesAreBounded: a stdio upstream with session
// per_client and max_client_sessions 3 runs, whatever the number of
// clients, its shared process (the catalog's) and at most 3 of clients'
// own; the 4th client and the ones after get a busy error naming the
// limit, until a client with a process of its own leaves.
func TestPerClientStdioProcessesAreBounded(t *testing.T) {
	bin := testenv.Build(t, "./examples/echo-server", "echo-server")
	marker := "FAIRNESS_MARKER=" + filepath.Base(t.TempDir())
	caddy := testenv.StartCaddy(t, `{
	admin 127.0.0.1:{ADMIN_PORT}
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	mcp_gateway /mcp {
		upstream local {
			command `+bin+` -stdio -flavour crm
			env `+strings.Replace(marker, "=", " ", 1)+`
			session per_client
			max_client_sessions 3
		}
	}
}
`)
	url := caddy.URL("/mcp")
	const clients = 8
	sessions := make([]*mcp.ClientSession, clients)
	for i := range sessions {
		sessions[i] = connectGo(t, url, nil, testenv.SessionRevision)
	}
	if n := len(testenv.UpstreamProcessesWithEnv(marker)); n != 1 {
		t.Errorf("%d processes of the upstream before any call, want 1 (the shared one)", n)
	}

	most := 0
	done := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			most = max(most, len(testenv.UpstreamProcessesWithEnv(marker)))
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	outcomes := make([]string, clients)
	var wg sync.WaitGroup
	for i, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text, code, err := executeOutcome(cs, "local.people_search", map[string]any{"name": "ada"})
			switch {
			case err != nil:
				outcomes[i] = "error: " + err.Error()
			case code == "":
				outcomes[i] = "ok"
			default:
				outcomes[i] = code
				if code != "busy" || !strings.Contains(text, "max_client_sessions") {
					outcomes[i] = code + ": " + text
				}
			}
		}()
	}
	wg.Wait()
	time.Sleep(300 * time.Millisecond) // a process started last is seen too
	close(done)
	<-watched
	counts := map[string]int{}
	for _, o := range outcomes {
		counts[o]++
	}
	t.Logf("%d clients' calls: %v; at most %d processes of the upstream", clients, counts, most)
	if counts["ok"] != 3 || counts["busy"] != clients-3 {
		t.Errorf("%d clients' calls: %v, want 3 ok and %d busy naming max_client_sessions", clients, counts, clients-3)
	}
	if most > 1+3 {
		t.Errorf("%d processes of the upstream at once, want at most 4 (the shared one and 3 clients' own)", most)
	}

	// A client with a process of its own leaves: its process ends, and a
	// client that was refused gets one.
	first, refused := -1, -1
	for i, o := range outcomes {
		switch {
		case o == "ok" && first < 0:
			first = i
		case o == "busy" && refused < 0:
			refused = i
		}
	}
	if first < 0 || refused < 0 {
		return
	}
	sessions[first].Close()
	deadline := time.Now().Add(10 * time.Second)
	for len(testenv.UpstreamProcessesWithEnv(marker)) > 3 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := len(testenv.UpstreamProcessesWithEnv(marker)); n != 3 {
		t.Errorf("%d processes of the upstream after a client left, want 3", n)
	}
	// The process is gone from /proc a moment before the gateway has
	// reaped it and counted its place free, so a call may still be busy
	// briefly; it must succeed within a few seconds.
	text, code, err := executeOutcome(sessions[refused], "local.people_search", map[string]any{"name": "ada"})
	for deadline := time.Now().Add(5 * time.Second); err == nil && code == "busy" && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		text, code, err = executeOutcome(sessions[refused], "local.people_search", map[string]any{"name": "ada"})
	}
	if err != nil || code != "" {
		t.Errorf("a refused client's call once a place is free: %q %q %v", code, text, err)
	}
	if n := len(testenv.UpstreamProcessesWithEnv(marker)); n > 4 {
		t.Errorf("%d processes of the upstream, want at most 4", n)
	}
}
