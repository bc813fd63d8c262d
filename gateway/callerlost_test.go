package gateway

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestCallAfterItsClientLeftIsRefused: a request's policy (its Caller) is
// known only while the edge serves its HTTP request, and the SDK goes on
// handling a session's requests after the client hangs up. With a policy
// chosen per request (a stricter one for tools/call, as
// examples/security/tools-call-policy.Caddyfile does), a client that puts
// its call behind a batch of notifications and hangs up must not have the
// call judged by its session's first request's policy: a tool the calls
// policy hides must not run.
func TestCallAfterItsClientLeftIsRefused(t *testing.T) {
	var wiped atomic.Int32
	s := mcp.NewServer(&mcp.Implementation{Name: "echo"}, nil)
	addTextTool(s, "echo", "Echo the message back", "echoed")
	s.AddTool(&mcp.Tool{Name: "admin_wipe", Description: "Wipe everything (admins only).", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			wiped.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wiped"}}}, nil
		})
	core, logs := observer.New(zap.DebugLevel)
	// Rule 0 for tools/call (no admin_* tools), rule 1 for everything else.
	tg := startGatewayWith(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("echo", serveHTTP(t, s).URL)}},
		Options{Logger: zap.New(core), Access: []AccessRule{{Allow: []string{"echo.*"}, Deny: []string{"echo.admin_*"}}, {Allow: []string{"*"}}}})
	ts := serveEdge(t, tg, EdgeOptions{Identify: func(r *http.Request) (Caller, error) {
		if r.Header.Get("Mcp-Method") == "tools/call" {
			return Caller{Policy: 0, User: "bob"}, nil
		}
		return Caller{Policy: 1, User: "bob"}, nil
	}})

	// bob's session, begun (initialize) under the browsing policy.
	resp, _ := postHeader(t, ts.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"bob","version":"1"}}}`, nil)
	sid := resp.Header.Get(headerSessionID)
	if sid == "" {
		t.Fatal("no session")
	}
	h := http.Header{headerSessionID: {sid}}
	postHeader(t, ts.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo_admin_wipe","arguments":{}}}`

	// Control: the call on its own is judged by the calls policy.
	if _, body := postHeader(t, ts.URL, call, h); !strings.Contains(body, "unknown tool") || wiped.Load() != 0 {
		t.Fatalf("control: bob's call of echo_admin_wipe answered %s (upstream calls %d), want unknown tool", body, wiped.Load())
	}

	// The same call behind a batch of notifications, the client gone as
	// soon as the body is sent.
	var b strings.Builder
	b.WriteString("[")
	note := `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},`
	for b.Len()+len(note)+len(call)+2 < DefaultMaxRequestBody {
		b.WriteString(note)
	}
	b.WriteString(strings.Replace(call, `"id":2`, `"id":3`, 1))
	b.WriteString("]")
	body := b.String()
	u, _ := url.Parse(ts.URL)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%s: %s\r\nContent-Length: %d\r\n\r\n%s",
		u.Host, headerSessionID, sid, len(body), body)
	conn.Close()

	// The batch takes the SDK a while to get through, several seconds under
	// the race detector on a busy machine: the wait ends when the call is
	// refused (or runs), or after a minute.
	deadline := time.Now().Add(time.Minute)
	for wiped.Load() == 0 && logs.FilterMessageSnippet("request refused").Len() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if logs.FilterMessageSnippet("request refused").Len() == 0 {
		t.Error("the late call was never refused")
	}
	if n := wiped.Load(); n != 0 {
		t.Errorf("echo.admin_wipe, hidden from bob's tools/call policy, ran %d time(s) upstream: its request was served after bob hung up, under his session's browsing policy", n)
	}
}
