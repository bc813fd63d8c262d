package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func basic(user, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}

// rawPost sends one JSON-RPC message to the gateway and returns the status.
func rawPost(t *testing.T, url string, headers map[string]string, body string) int {
	t.Helper()
	code, _ := postFor(t, url, headers, body)
	return code
}

// postFor sends one JSON-RPC message to the gateway ("Host" in headers
// sets the request's host) and returns the status and the answer's
// headers.
func postFor(t *testing.T, url string, headers map[string]string, body string) (int, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header
}

const listTools = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

func domainNames(t *testing.T, c *testenv.TSClient) []string {
	t.Helper()
	var got struct {
		Domains []struct{ Name string } `json:"domains"`
	}
	call(t, c, "discover_tools", map[string]any{}).decode(t, &got)
	var names []string
	for _, d := range got.Domains {
		names = append(names, d.Name)
	}
	return names
}

func connectAs(t *testing.T, url string, headers map[string]string) (*testenv.TSClient, string) {
	t.Helper()
	c := testenv.StartTSClient(t)
	v := c.MustDo(map[string]any{"op": "connect", "url": url, "headers": headers})
	id, _ := v["sessionId"].(string)
	return c, id
}

// TestBasicAuthExample runs examples/security/basic-auth.Caddyfile as it
// is: alice (admin) and bob get different tools from one endpoint, and
// nothing hidden from bob leaks to him by any route.
func TestBasicAuthExample(t *testing.T) {
	echo := testenv.EchoServer(t)
	port := testenv.FreePort(t)
	testenv.StartCaddyFile(t, "examples/security/basic-auth.Caddyfile", port,
		fmt.Sprint("GATEWAY_PORT=", port), "ECHO_URL="+echo, "GATEWAY_MODE=meta")
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	alice := map[string]string{"Authorization": basic("alice", "alice-password")}
	bobHeaders := map[string]string{"Authorization": basic("bob", "bob-password"), "X-Request-Id": "req-42", "X-Secret": "s3cret"}

	if code := rawPost(t, url, nil, listTools); code != http.StatusUnauthorized {
		t.Errorf("no credentials: %d, want 401", code)
	}

	a, aliceSession := connectAs(t, url, alice)
	if got := domainNames(t, a); !slices.Equal(got, []string{"echo", "ops"}) {
		t.Errorf("alice sees %v", got)
	}
	if r := call(t, a, "execute_tool", map[string]any{"tool_name": "ops.admin_reset"}); r.IsError || r.text() != "reset done" {
		t.Errorf("alice's admin call: %+v", r)
	}

	b, bobSession := connectAs(t, url, bobHeaders)
	if got := domainNames(t, b); !slices.Equal(got, []string{"echo"}) {
		t.Errorf("bob sees %v", got)
	}
	for _, name := range []string{"ops.admin_reset", "echo.admin_reset", "ops_admin_reset", "admin_reset", "echo.admin_rest", "echo.admin_resett"} {
		msg := call(t, b, "execute_tool", map[string]any{"tool_name": name}).gatewayError(t)
		if !strings.HasPrefix(msg, "Unknown tool '"+name+"'.") || strings.Contains(strings.ReplaceAll(msg, name, ""), "admin") {
			t.Errorf("bob executing %s: %q", name, msg)
		}
		msg = call(t, b, "get_tool_schema", map[string]any{"tool_name": name}).gatewayError(t)
		if strings.Contains(strings.ReplaceAll(msg, name, ""), "admin") {
			t.Errorf("bob's schema lookup of %s leaks: %q", name, msg)
		}
	}
	for _, q := range []string{"select:echo.admin_reset,ops.admin_reset", "/admin/", "reset everything", "+admin"} {
		var res struct {
			Results []struct{ Name string } `json:"results"`
			Total   int                     `json:"total"`
		}
		call(t, b, "discover_tools", map[string]any{"query": q}).decode(t, &res)
		if res.Total != 0 || len(res.Results) != 0 {
			t.Errorf("bob's query %q finds %+v", q, res.Results)
		}
	}

	// What reaches the upstream: bob's identity (resolved per request) and
	// the one forwarded header, never his credentials or other headers.
	var seen map[string]string
	if err := json.Unmarshal([]byte(call(t, b, "execute_tool", map[string]any{"tool_name": "echo.headers"}).text()), &seen); err != nil {
		t.Fatal(err)
	}
	if seen["X-User"] != "bob" || seen["X-Request-Id"] != "req-42" {
		t.Errorf("the upstream got X-User %q and X-Request-Id %q, want bob and req-42", seen["X-User"], seen["X-Request-Id"])
	}
	for _, h := range []string{"Authorization", "X-Secret", "Mcp-Gateway-Upstream-Headers"} {
		if _, ok := seen[h]; ok {
			t.Errorf("the client's %s header reached the upstream: %v", h, seen)
		}
	}

	// A stolen session ID is refused like an unknown one.
	proto := map[string]string{"MCP-Protocol-Version": "2025-11-25"}
	withSession := func(creds map[string]string, session string) map[string]string {
		h := map[string]string{"Mcp-Session-Id": session}
		for k, v := range creds {
			h[k] = v
		}
		for k, v := range proto {
			h[k] = v
		}
		return h
	}
	if code := rawPost(t, url, withSession(bobHeaders, aliceSession), listTools); code != http.StatusNotFound {
		t.Errorf("bob presenting alice's session: %d, want 404", code)
	}
	if code := rawPost(t, url, withSession(bobHeaders, bobSession), listTools); code != http.StatusOK {
		t.Errorf("bob presenting his own session: %d, want 200", code)
	}
	if code := rawPost(t, url, withSession(alice, bobSession), listTools); code != http.StatusNotFound {
		t.Errorf("alice presenting bob's session: %d, want 404", code)
	}

	// Forged Host (DNS rebinding) and a cross-origin browser request.
	if code := rawPost(t, url, map[string]string{"Authorization": alice["Authorization"], "Host": "evil.example.com"}, listTools); code != http.StatusForbidden {
		t.Errorf("forged Host: %d, want 403", code)
	}
	if code := rawPost(t, url, map[string]string{"Authorization": alice["Authorization"], "Origin": "https://evil.example.com", "Sec-Fetch-Site": "cross-site"}, listTools); code != http.StatusForbidden {
		t.Errorf("cross-origin browser request: %d, want 403", code)
	}
}

// TestBasicAuthExamplePassthrough runs the same example in passthrough
// mode: bob's tools/list holds only his tools, and a hidden one cannot be
// called.
func TestBasicAuthExamplePassthrough(t *testing.T) {
	echo := testenv.EchoServer(t)
	port := testenv.FreePort(t)
	testenv.StartCaddyFile(t, "examples/security/basic-auth.Caddyfile", port,
		fmt.Sprint("GATEWAY_PORT=", port), "ECHO_URL="+echo, "GATEWAY_MODE=passthrough")
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	names := func(c *testenv.TSClient) []string {
		var out []string
		for _, tool := range c.MustDo(map[string]any{"op": "listTools"})["result"].(map[string]any)["tools"].([]any) {
			out = append(out, tool.(map[string]any)["name"].(string))
		}
		slices.Sort(out)
		return out
	}
	b, _ := connectAs(t, url, map[string]string{"Authorization": basic("bob", "bob-password")})
	if got := names(b); !slices.Equal(got, []string{"echo_echo", "echo_headers"}) {
		t.Errorf("bob's passthrough tools: %v", got)
	}
	if v := b.Do(map[string]any{"op": "callTool", "name": "echo_admin_reset"}); v["ok"] == true && !strings.Contains(fmt.Sprint(v), "isError:true") {
		t.Errorf("bob called a hidden passthrough tool: %v", v)
	}
	a, _ := connectAs(t, url, map[string]string{"Authorization": basic("alice", "alice-password")})
	if got := names(a); !slices.Contains(got, "ops_admin_reset") || !slices.Contains(got, "echo_admin_reset") {
		t.Errorf("alice's passthrough tools: %v", got)
	}
}

// TestForwardAuthExample runs examples/security/forward-auth.Caddyfile:
// an auth service names the caller, and a caller cannot name itself. Its
// `identity` binds each session to its user: carol, under the same policy
// as bob, can neither use bob's session ID nor end it (the finding: with
// sessions bound per policy, she could do both), and the log names the
// caller of each tool call by policy and user.
func TestForwardAuthExample(t *testing.T) {
	echo := testenv.EchoServer(t)
	port, authPort := testenv.FreePort(t), testenv.FreePort(t)
	caddy := testenv.StartCaddyFile(t, "examples/security/forward-auth.Caddyfile", port,
		fmt.Sprint("GATEWAY_PORT=", port), fmt.Sprint("AUTH_PORT=", authPort), "ECHO_URL="+echo)
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)

	if code := rawPost(t, url, nil, listTools); code != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", code)
	}
	if code := rawPost(t, url, map[string]string{"Authorization": "Bearer wrong"}, listTools); code != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d, want 401", code)
	}
	a, _ := connectAs(t, url, map[string]string{"Authorization": "Bearer alice-token"})
	if r := call(t, a, "execute_tool", map[string]any{"tool_name": "echo.admin_reset"}); r.IsError {
		t.Errorf("alice's admin call: %s", r.text())
	}
	// bob claims to be alice with a header of his own: the auth service's
	// answer replaces it.
	b, bobSession := connectAs(t, url, map[string]string{"Authorization": "Bearer bob-token", "X-Auth-User": "alice"})
	if msg := call(t, b, "execute_tool", map[string]any{"tool_name": "echo.admin_reset"}).gatewayError(t); !strings.HasPrefix(msg, "Unknown tool") {
		t.Errorf("bob's admin call: %q", msg)
	}
	var seen map[string]string
	json.Unmarshal([]byte(call(t, b, "execute_tool", map[string]any{"tool_name": "echo.headers"}).text()), &seen)
	if seen["X-User"] != "bob" {
		t.Errorf("the upstream was told the caller is %q, want bob", seen["X-User"])
	}

	// carol, under bob's policy, presents bob's session ID: it is unknown
	// to her, to use or to end.
	carol := map[string]string{"Authorization": "Bearer carol-token", "Mcp-Session-Id": bobSession, "MCP-Protocol-Version": testenv.SessionRevision}
	hijack := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"execute_tool","arguments":{"tool_name":"echo.echo","arguments":{"text":"as bob"}}}}`
	if code := rawPost(t, url, carol, hijack); code != http.StatusNotFound {
		t.Errorf("carol calling a tool in bob's session: %d, want 404", code)
	}
	if code := rawDelete(t, url, carol); code != http.StatusNotFound {
		t.Errorf("carol ending bob's session: %d, want 404", code)
	}
	if v := b.Do(map[string]any{"op": "callTool", "name": "execute_tool", "arguments": map[string]any{"tool_name": "echo.echo", "arguments": map[string]any{"text": "still mine"}}}); v["ok"] != true || !strings.Contains(fmt.Sprint(v["result"]), "text:still mine") {
		t.Errorf("bob's session after carol's attempts: %v", v)
	}
	c, _ := connectAs(t, url, map[string]string{"Authorization": "Bearer carol-token"})
	if r := call(t, c, "execute_tool", map[string]any{"tool_name": "echo.echo", "arguments": map[string]any{"text": "carol"}}); r.IsError || r.text() != "carol" {
		t.Errorf("carol's own session: %+v", r)
	}

	// Each tool call's log line names its caller: policy/user. (carol's
	// call was the last.)
	callers := map[string]int{}
	for _, line := range logLinesOnceThere(caddy, `"identity":"default/carol"`, 1) {
		if !strings.Contains(line, `"msg":"tool call"`) {
			continue
		}
		var entry struct{ Identity string }
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		callers[entry.Identity]++
	}
	var identities []string
	for id := range callers {
		identities = append(identities, id)
	}
	slices.Sort(identities)
	if want := []string{"admins/alice", "default/bob", "default/carol"}; !slices.Equal(identities, want) {
		t.Errorf("tool call log lines by identity: %v, want lines of %v only", callers, want)
	}
	if strings.Contains(caddy.Output(), "a request has no identity") {
		t.Error("the example, which sets identity, logged that a request has none")
	}
}

// rawDelete ends a session with DELETE and returns the status.
func rawDelete(t *testing.T, url string, headers map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestTLSExample runs examples/security/tls.Caddyfile: HTTPS from Caddy's
// internal CA, used by a client that trusts that CA.
func TestTLSExample(t *testing.T) {
	echo := testenv.EchoServer(t)
	port, httpPort := testenv.FreePort(t), testenv.FreePort(t)
	caddy := testenv.StartCaddyFile(t, "examples/security/tls.Caddyfile", port,
		fmt.Sprint("GATEWAY_PORT=", port), fmt.Sprint("HTTP_PORT=", httpPort), "ECHO_URL="+echo)
	rootPath := filepath.Join(caddy.Dir, "data", "caddy", "pki", "authorities", "local", "root.crt")
	var root []byte
	deadline := time.Now().Add(30 * time.Second)
	for len(root) == 0 {
		root, _ = os.ReadFile(rootPath)
		if time.Now().After(deadline) {
			t.Fatalf("Caddy wrote no root certificate at %s", rootPath)
		}
		time.Sleep(100 * time.Millisecond)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(root) {
		t.Fatal("bad root certificate")
	}
	// The root certificate comes first; the site's own certificate is
	// issued from it a moment later. Until then handshakes fail.
	addr := fmt.Sprintf("localhost:%d", port)
	for {
		conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool})
		if err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no TLS handshake with %s: %v", addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	httpClient := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "tls-test"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: fmt.Sprintf("https://localhost:%d/mcp", port), HTTPClient: httpClient},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_tool", Arguments: map[string]any{"tool_name": "echo.echo", "arguments": map[string]any{"text": "over TLS"}}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "over TLS" {
		t.Errorf("a call over TLS: %+v %v", res, err)
	}
	// A client that does not trust the CA cannot connect.
	if _, err := http.Get(fmt.Sprintf("https://localhost:%d/mcp", port)); err == nil {
		t.Error("a client without the CA connected")
	}
}

// initializeMessage opens a session; each one is a request of its own.
const initializeMessage = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ratelimit-test","version":"1"}}}`

// TestRateLimitExample runs examples/security/ratelimit.Caddyfile with
// github.com/mholt/caddy-ratelimit built in: a user over the per-user
// limit gets 429 with Retry-After while another user from the same
// address goes on, and the per-address limit stops unauthenticated
// floods before credentials are checked.
func TestRateLimitExample(t *testing.T) {
	echo := testenv.EchoServer(t)
	port := testenv.FreePort(t)
	const userEvents, addressEvents = 6, 40
	testenv.StartCaddyFile(t, "examples/security/ratelimit.Caddyfile", port,
		fmt.Sprint("GATEWAY_PORT=", port), "ECHO_URL="+echo,
		fmt.Sprint("USER_EVENTS=", userEvents), fmt.Sprint("IP_EVENTS=", addressEvents))
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	alice := map[string]string{"Authorization": basic("alice", "alice-password")}
	bob := map[string]string{"Authorization": basic("bob", "bob-password")}
	requests := 0 // from this address, for the per-address limit

	b, _ := connectAs(t, url, bob)
	requests += 3 // initialize, notifications/initialized, the event stream
	if r := call(t, b, "execute_tool", map[string]any{"tool_name": "echo.echo", "arguments": map[string]any{"text": "hi"}}); r.IsError || r.text() != "hi" {
		t.Fatalf("bob's call: %+v", r)
	}
	requests++

	// alice spends her limit; the next request is refused.
	for i := range userEvents {
		if code := rawPost(t, url, alice, initializeMessage); code != http.StatusOK {
			t.Fatalf("alice's request %d of %d allowed: %d, want 200", i+1, userEvents, code)
		}
		requests++
	}
	code, answer := postFor(t, url, alice, initializeMessage)
	requests++
	if code != http.StatusTooManyRequests {
		t.Fatalf("alice over her limit: %d, want 429", code)
	}
	if secs, err := strconv.Atoi(answer.Get("Retry-After")); err != nil || secs < 1 || secs > 60 {
		t.Errorf("Retry-After %q, want 1 to 60 seconds", answer.Get("Retry-After"))
	}
	// An MCP client sees the refusal as an error, not a hang.
	a := testenv.StartTSClient(t)
	v := a.Do(map[string]any{"op": "connect", "url": url, "headers": alice})
	requests++
	if v["ok"] == true || v["code"] != float64(http.StatusTooManyRequests) {
		t.Errorf("alice's client connecting over her limit: %v, want an HTTP 429 error", v)
	}

	// bob, from the same address, is unaffected.
	if r := call(t, b, "execute_tool", map[string]any{"tool_name": "echo.echo", "arguments": map[string]any{"text": "still here"}}); r.IsError || r.text() != "still here" {
		t.Errorf("bob's call after alice hit her limit: %+v", r)
	}
	requests++

	// Requests without credentials count against the address: they get
	// 401 until the address's limit, then 429 before any password check.
	for ; requests < addressEvents; requests++ {
		if code := rawPost(t, url, nil, listTools); code != http.StatusUnauthorized {
			t.Fatalf("request %d from the address without credentials: %d, want 401", requests+1, code)
		}
	}
	if code := rawPost(t, url, nil, listTools); code != http.StatusTooManyRequests {
		t.Errorf("request %d from the address without credentials: %d, want 429", addressEvents+1, code)
	}
	if code := rawPost(t, url, bob, initializeMessage); code != http.StatusTooManyRequests {
		t.Errorf("bob from the flooded address: %d, want 429", code)
	}
}
