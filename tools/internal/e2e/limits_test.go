package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// post sends body to the gateway as a client's JSON-RPC message and
// returns the status and the response body.
func post(t *testing.T, url, sessionID, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if sessionID != "" {
		req.Header.Set("Mcp-Session-Id", sessionID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestClientLimitsAndGarbage: a real Caddy with small limits refuses, with
// a clear error, a session over max_sessions, a body over
// max_request_body, and malformed JSON-RPC; and goes on serving the
// sessions it has.
func TestClientLimitsAndGarbage(t *testing.T) {
	everythingURL, _ := testenv.StartEverythingServer(t)
	caddy := testenv.StartCaddy(t, loopbackGateway("max_sessions 2", "max_request_body 16KB", "upstream ev "+everythingURL))
	url := caddy.URL("/mcp")
	connect := func() (*mcp.ClientSession, error) {
		return mcp.NewClient(&mcp.Implementation{Name: "limits"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: url}, testenv.SessionOptions())
	}
	var sessions []*mcp.ClientSession
	for range 2 {
		cs, err := connect()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		sessions = append(sessions, cs)
	}

	// One session too many: 503, a JSON-RPC error saying why.
	status, body := post(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	var refusal struct {
		Error struct{ Message string }
	}
	_ = json.Unmarshal([]byte(body), &refusal)
	if status != http.StatusServiceUnavailable || !strings.Contains(refusal.Error.Message, "already serves 2 client sessions, its limit (max_sessions)") {
		t.Errorf("third session: %d %s", status, body)
	}

	id := sessions[0].ID()
	// A body over max_request_body.
	big := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"discover_tools","arguments":{"query":"` + strings.Repeat("a", 20000) + `"}}}`
	if status, body := post(t, url, id, big); status != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: %d %s", status, body)
	}
	// Malformed JSON-RPC.
	for _, garbage := range []string{`{"jsonrpc":"2.0","id":3,"method":`, `[1,2,3]`, `"just a string"`, "\x00\xff\xfe", `{"jsonrpc":"1.0","id":4,"method":"tools/list"}`} {
		status, body := post(t, url, id, garbage)
		if status < 400 || status >= 500 {
			t.Errorf("garbage %q: %d %s, want a 4xx", garbage, status, body)
		}
	}
	// The sessions still work, and once one closes a new one may open.
	for i, cs := range sessions {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute_tool", Arguments: map[string]any{"tool_name": "ev.test_simple_text"}})
		if err != nil || res.IsError {
			t.Errorf("session %d after the refusals: %v %+v", i, err, res)
		}
	}
	sessions[1].Close()
	waitUntil(t, "a session slot to free up", func() bool {
		cs, err := connect()
		if err != nil {
			return false
		}
		t.Cleanup(func() { cs.Close() })
		return true
	})
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestIdleSessionTimeout: a session idle for longer than session_timeout
// is closed: its ID gets 404 (so the client knows to start over), and a
// new session works.
func TestIdleSessionTimeout(t *testing.T) {
	everythingURL, _ := testenv.StartEverythingServer(t)
	caddy := testenv.StartCaddy(t, loopbackGateway("session_timeout 1s", "upstream ev "+everythingURL))
	url := caddy.URL("/mcp")
	connect := func() *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "idle"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true}, testenv.SessionOptions())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	idle := connect()
	time.Sleep(2500 * time.Millisecond)
	if status, body := post(t, url, idle.ID(), listTools); status != http.StatusNotFound {
		t.Errorf("a request on a session idle past session_timeout: %d %s, want 404", status, body)
	}
	fresh := connect()
	if res, err := fresh.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute_tool", Arguments: map[string]any{"tool_name": "ev.test_simple_text"}}); err != nil || res.IsError {
		t.Errorf("a new session after the timeout: %v %+v", err, res)
	}
}
