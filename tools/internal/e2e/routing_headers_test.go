package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
)

// toolNames lists the tools of a client's tools/list.
func toolNames(t *testing.T, c *testenv.TSClient) []string {
	t.Helper()
	var out []string
	for _, tool := range c.MustDo(map[string]any{"op": "listTools"})["result"].(map[string]any)["tools"].([]any) {
		out = append(out, tool.(map[string]any)["name"].(string))
	}
	slices.Sort(out)
	return out
}

// connectWith starts a client of era (testenv.Revision2026 for the SDK
// 2.x client, else the SDK 1.x one) and connects it with headers.
func connectWith(t *testing.T, era, url string, headers map[string]string) *testenv.TSClient {
	t.Helper()
	c := testenv.StartTSClient(t)
	if era == testenv.Revision2026 {
		c = testenv.StartTS2Client(t)
	}
	v := c.MustDo(map[string]any{"op": "connect", "url": url, "headers": headers})
	if era == testenv.Revision2026 && v["protocolVersion"] != testenv.Revision2026 {
		t.Fatalf("the SDK 2.x client connected at %v, want %s", v["protocolVersion"], testenv.Revision2026)
	}
	return c
}

// echoCall calls the echo tool in passthrough mode and reports whether it
// answered text.
func echoCall(c *testenv.TSClient, text string) (ok bool, answer map[string]any) {
	v := c.Do(map[string]any{"op": "callTool", "name": "echo_echo", "arguments": map[string]any{"text": text}})
	if v["ok"] != true {
		return false, v
	}
	b, _ := json.Marshal(v["result"])
	var r toolResult
	_ = json.Unmarshal(b, &r)
	return !r.IsError && r.text() == text, v
}

// mismatched is a tools/call of echo_echo whose routing headers, or
// headers, say otherwise.
func mismatched(t *testing.T, url string, auth map[string]string, headers map[string]string, era string) rpcAnswer {
	t.Helper()
	params := map[string]any{"name": "echo_echo", "arguments": map[string]any{"text": "hi"}}
	if era == testenv.Revision2026 {
		params["_meta"] = meta2026(map[string]any{})
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
	h := map[string]string{}
	for k, v := range auth {
		h[k] = v
	}
	for k, v := range headers {
		h[k] = v
	}
	return postRPC(t, url, h, body)
}

// TestRateLimitPerToolExample runs examples/security/ratelimit-per-tool.Caddyfile:
// a user over the limit on one tool gets 429 on that tool only, other users
// are unaffected, a client that names another tool in Mcp-Name is refused
// by the gateway, and, as the example says, the calls of a client of an
// earlier revision (no Mcp-Name when rate_limit runs) count per user only.
func TestRateLimitPerToolExample(t *testing.T) {
	echo := testenv.EchoServer(t)
	port := testenv.FreePort(t)
	const toolEvents, userEvents = 3, 16
	testenv.StartCaddyFile(t, "examples/security/ratelimit-per-tool.Caddyfile", port,
		fmt.Sprint("GATEWAY_PORT=", port), "ECHO_URL="+echo,
		fmt.Sprint("TOOL_EVENTS=", toolEvents), fmt.Sprint("USER_EVENTS=", userEvents))
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	alice := map[string]string{"Authorization": basic("alice", "alice-password")}
	bob := map[string]string{"Authorization": basic("bob", "bob-password")}
	carol := map[string]string{"Authorization": basic("carol", "carol-password")}

	// alice, on 2026-07-28, spends her limit on echo_echo.
	a := connectWith(t, testenv.Revision2026, url, alice)
	for i := range toolEvents {
		if ok, v := echoCall(a, fmt.Sprint("call ", i)); !ok {
			t.Fatalf("alice's echo_echo call %d of %d: %v", i+1, toolEvents, v)
		}
	}
	ok, v := echoCall(a, "one too many")
	if ok || v["status"] != float64(http.StatusTooManyRequests) {
		t.Errorf("alice's echo_echo call over the limit: %v, want HTTP 429", v)
	}
	// Her other tools and bob are unaffected.
	if r := a.Do(map[string]any{"op": "callTool", "name": "echo_headers", "arguments": map[string]any{}}); r["ok"] != true {
		t.Errorf("alice's echo_headers after her echo_echo limit: %v", r)
	}
	b := connectWith(t, testenv.Revision2026, url, bob)
	if ok, v := echoCall(b, "bob's turn"); !ok {
		t.Errorf("bob's echo_echo after alice's limit: %v", v)
	}

	// alice names another tool in Mcp-Name to escape the limit: the
	// gateway refuses the request, whatever rate_limit counted it as.
	lie := mismatched(t, url, alice, map[string]string{
		"Mcp-Protocol-Version": testenv.Revision2026, "Mcp-Method": "tools/call", "Mcp-Name": "echo_headers"}, testenv.Revision2026)
	if lie.Status != http.StatusBadRequest || lie.Error == nil || lie.Error.Code != -32020 {
		t.Errorf("alice's echo_echo call named echo_headers: HTTP %d, error %+v; want 400 and -32020", lie.Status, lie.Error)
	}

	// alice repeats Mcp-Name, the true name first and another after it:
	// rate_limit keys on the values joined ("echo_echo,dodge"), a bucket
	// of its own; the gateway refuses a routing header given twice.
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 9, "method": "tools/call",
		"params": map[string]any{"name": "echo_echo", "arguments": map[string]any{"text": "hi"}, "_meta": meta2026(map[string]any{})}})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", alice["Authorization"])
	req.Header.Set("Mcp-Protocol-Version", testenv.Revision2026)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Add("Mcp-Name", "echo_echo")
	req.Header.Add("Mcp-Name", "dodge")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(answer), "-32020") {
		t.Errorf("alice's echo_echo call with Mcp-Name given twice: HTTP %d %s; want 400 and -32020", resp.StatusCode, answer)
	}

	// carol's client speaks 2025-11-25: her calls carry no Mcp-Name when
	// rate_limit runs, so per_tool does not count them, and she calls
	// echo_echo past its per-tool limit; per_user still bounds her.
	c := connectWith(t, testenv.SessionRevision, url, carol)
	requests := 3 // initialize, notifications/initialized, the event stream
	for i := range toolEvents + 2 {
		if ok, v := echoCall(c, fmt.Sprint("carol ", i)); !ok {
			t.Fatalf("carol's echo_echo call %d (per-tool limit %d, which her requests escape): %v", i+1, toolEvents, v)
		}
		requests++
	}
	for ; ; requests++ {
		code := rawPost(t, url, carol, initializeMessage)
		if code == http.StatusTooManyRequests {
			break
		}
		if code != http.StatusOK || requests > userEvents+2 {
			t.Fatalf("carol's request %d: %d, want 200 until her per-user limit of %d, then 429", requests+1, code, userEvents)
		}
	}
	if requests < userEvents-2 {
		t.Errorf("carol got 429 after %d requests, want about %d (her per-user limit)", requests, userEvents)
	}
}

// TestToolsCallPolicyExample runs examples/security/tools-call-policy.Caddyfile
// with a client of each protocol era: a `header Mcp-Method tools/call`
// matcher gives calls a stricter policy than listing, for clients that
// send the header (2026-07-28) and for those whose header the gateway
// fills in (earlier revisions); a request whose routing headers disagree
// with its body is refused with 400 and -32020 before a policy is chosen.
func TestToolsCallPolicyExample(t *testing.T) {
	echo := testenv.EchoServer(t)
	port := testenv.FreePort(t)
	testenv.StartCaddyFile(t, "examples/security/tools-call-policy.Caddyfile", port,
		fmt.Sprint("GATEWAY_PORT=", port), "ECHO_URL="+echo)
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	alice := map[string]string{"Authorization": basic("alice", "alice-password")}
	bob := map[string]string{"Authorization": basic("bob", "bob-password")}

	for _, era := range []string{testenv.Revision2026, testenv.SessionRevision} {
		t.Run(era, func(t *testing.T) {
			b := connectWith(t, era, url, bob)
			if got := toolNames(t, b); !slices.Equal(got, []string{"echo_admin_reset", "echo_echo", "echo_headers"}) {
				t.Errorf("bob's tools/list (the lax policy): %v, want every tool", got)
			}
			if ok, v := echoCall(b, "allowed"); !ok {
				t.Errorf("bob calling echo_echo: %v", v)
			}
			v := b.Do(map[string]any{"op": "callTool", "name": "echo_admin_reset", "arguments": map[string]any{}})
			b2, _ := json.Marshal(v["result"])
			var r toolResult
			_ = json.Unmarshal(b2, &r)
			if v["ok"] == true && (!r.IsError || !strings.Contains(r.text(), "Unknown tool")) {
				t.Errorf("bob calling echo_admin_reset (denied to calls): %v, want it refused as unknown", v)
			}
			if v["ok"] != true && !strings.Contains(fmt.Sprint(v["error"]), "echo_admin_reset") {
				t.Errorf("bob calling echo_admin_reset: %v, want an error about that tool", v)
			}
			a := connectWith(t, era, url, alice)
			if r := a.Do(map[string]any{"op": "callTool", "name": "echo_admin_reset", "arguments": map[string]any{}}); r["ok"] != true || !strings.Contains(fmt.Sprint(r["result"]), "reset done") {
				t.Errorf("alice calling echo_admin_reset: %v", r)
			}
		})
	}

	// bob's tools/call of echo_echo said to be a tools/list, or a call of
	// another tool, by its routing headers: refused before any policy.
	for _, c := range []struct {
		what, era string
		headers   map[string]string
	}{
		{"2026-07-28, Mcp-Method tools/list", testenv.Revision2026, map[string]string{"Mcp-Protocol-Version": testenv.Revision2026, "Mcp-Method": "tools/list", "Mcp-Name": "echo_echo"}},
		{"2026-07-28, Mcp-Name echo_headers", testenv.Revision2026, map[string]string{"Mcp-Protocol-Version": testenv.Revision2026, "Mcp-Method": "tools/call", "Mcp-Name": "echo_headers"}},
		{"2026-07-28, no Mcp-Method", testenv.Revision2026, map[string]string{"Mcp-Protocol-Version": testenv.Revision2026, "Mcp-Name": "echo_echo"}},
		{"2025-11-25, Mcp-Method tools/list", testenv.SessionRevision, map[string]string{"Mcp-Protocol-Version": testenv.SessionRevision, "Mcp-Method": "tools/list"}},
		{"2025-11-25, Mcp-Name echo_admin_reset", testenv.SessionRevision, map[string]string{"Mcp-Protocol-Version": testenv.SessionRevision, "Mcp-Name": "echo_admin_reset"}},
	} {
		a := mismatched(t, url, bob, c.headers, c.era)
		if a.Status != http.StatusBadRequest || a.Error == nil || a.Error.Code != -32020 {
			t.Errorf("%s on a tools/call of echo_echo: HTTP %d, error %+v; want 400 and JSON-RPC -32020", c.what, a.Status, a.Error)
		}
	}

	// bob's tools/call of echo_admin_reset whose body also says "Method":
	// "tools/list" (a key the SDK does not read: it matches keys exactly),
	// with Mcp-Method tools/list to be given the lax policy: refused, as
	// the headers do not match what the call runs.
	disguised := []byte(`{"jsonrpc":"2.0","id":8,"method":"tools/call","Method":"tools/list","params":{"name":"echo_admin_reset","arguments":{}}}`)
	h := map[string]string{"Mcp-Protocol-Version": testenv.SessionRevision, "Mcp-Method": "tools/list"}
	for k, v := range bob {
		h[k] = v
	}
	if a := postRPC(t, url, h, disguised); a.Status != http.StatusBadRequest || a.Error == nil || a.Error.Code != -32020 {
		t.Errorf("a tools/call disguised by a \"Method\" key and Mcp-Method tools/list: HTTP %d, error %+v; want 400 and JSON-RPC -32020", a.Status, a.Error)
	}
}
