package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// statelessAsk sends a stateless (2026-07-28) tools/call of tool,
// declaring elicitation, and returns the decoded JSON-RPC answer.
func statelessAsk(t *testing.T, url, tool string) map[string]any {
	params := map[string]any{"name": tool, "arguments": map[string]any{},
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": StatelessRevision,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}}}}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	_, resp := post(t, url, string(body), map[string]string{"Mcp-Protocol-Version": StatelessRevision, "Mcp-Method": "tools/call", "Mcp-Name": tool})
	if i := strings.Index(resp, "{"); i >= 0 {
		resp = resp[i:]
	}
	if j := strings.LastIndex(resp, "}"); j >= 0 {
		resp = resp[:j+1]
	}
	var m map[string]any
	_ = json.Unmarshal([]byte(resp), &m)
	return m
}

// askingServerThatGivesUp is an upstream of an earlier revision whose
// tool asks the client a question with a request of its own, and gives up
// on its own after a while (so that the test's server can close).
func askingServerThatGivesUp() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "asking"}, nil)
	s.AddTool(&mcp.Tool{Name: "ask_name", Description: "Ask the user's name.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			if _, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello"}}}, nil
		})
	return s
}

// TestHeldCallsRespectMaxClientSessions: max_client_sessions bounds the
// upstream sessions (processes, for stdio) that clients have of their own
// on a per_client upstream, and a held call (a stateless caller's call to
// an earlier-revision per_client upstream that asks questions) has one:
// calls beyond the bound are refused as busy, not held open.
func TestHeldCallsRespectMaxClientSessions(t *testing.T) {
	s := askingServerThatGivesUp()
	up := httpUpstream("asking", serveHTTP(t, s).URL)
	up.Session = SessionPerClient
	up.MaxClientSessions = 1
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{up}})
	if v := tg.Catalog().Domain("asking").upstream.ProtocolVersion(); v >= StatelessRevision || v == "" {
		t.Fatalf("the upstream speaks %q; the test needs an earlier revision", v)
	}
	ts := serveEdge(t, tg, EdgeOptions{})
	const calls = 4
	var wg sync.WaitGroup
	answers := make([]map[string]any, calls)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = statelessAsk(t, ts.URL, "asking_ask_name")
		}()
	}
	wg.Wait()
	held := 0
	for _, m := range answers {
		if r, _ := m["result"].(map[string]any); r != nil && r["resultType"] == "input_required" {
			held++
		}
	}
	time.Sleep(100 * time.Millisecond)
	sessions := 0
	for range s.Sessions() {
		sessions++
	}
	// One session is the gateway's discovery connection; max_client_sessions
	// allows one more.
	busy := 0
	for _, m := range answers {
		if r, _ := m["result"].(map[string]any); r != nil && strings.Contains(fmt.Sprint(r), "busy") {
			busy++
		}
	}
	if held != 1 || busy != calls-1 {
		t.Errorf("with max_client_sessions 1, %d calls held and %d refused as busy, want 1 and %d: %v", held, busy, calls-1, answers)
	}
	if held > 1 || sessions > 2 {
		t.Errorf("with max_client_sessions 1, %d calls were held open on upstream sessions of their own and the upstream has %d sessions (want at most 1 held call, 2 sessions: the rest refused as busy)", held, sessions)
	}
}

// TestHeldCallsKeepToTheirCallersShare: one caller's held calls take at
// most its share (half) of max_client_sessions, so that a caller who
// starts calls and never answers cannot leave every other caller busy.
func TestHeldCallsKeepToTheirCallersShare(t *testing.T) {
	up := httpUpstream("asking", serveHTTP(t, askingServerThatGivesUp()).URL)
	up.Session = SessionPerClient
	up.MaxClientSessions = 4
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{up}})
	ts := serveEdge(t, tg, EdgeOptions{Identify: func(r *http.Request) (Caller, error) {
		return Caller{User: r.Header.Get("X-User")}, nil
	}})
	ask := func(user string) string {
		params := map[string]any{"name": "asking_ask_name", "arguments": map[string]any{},
			"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": StatelessRevision,
				"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}}}}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
		_, resp := post(t, ts.URL, string(body), map[string]string{"Mcp-Protocol-Version": StatelessRevision,
			"Mcp-Method": "tools/call", "Mcp-Name": "asking_ask_name", "X-User": user})
		return resp
	}
	var held, busy int
	for range 4 {
		switch resp := ask("mallory"); {
		case strings.Contains(resp, "input_required"):
			held++
		case strings.Contains(resp, "busy for you"):
			busy++
		default:
			t.Fatalf("mallory's call got %s", resp)
		}
	}
	if held != 2 || busy != 2 {
		t.Errorf("mallory's 4 calls: %d held, %d busy for her; want 2 and 2 (her share of max_client_sessions 4)", held, busy)
	}
	if resp := ask("alice"); !strings.Contains(resp, "input_required") {
		t.Errorf("alice, after mallory took her share, got %s; want her call held", resp)
	}
}
