package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// postForAnswer sends one JSON-RPC body and returns the response's
// Content-Type, Content-Length header and body; it must answer 200.
func postForAnswer(t *testing.T, url, body string, headers map[string]string) (contentType, length, answer string) {
	t.Helper()
	h := http.Header{}
	for k, v := range headers {
		h.Set(k, v)
	}
	resp, answer := postHeader(t, url, body, h)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, answer)
	}
	return resp.Header.Get("Content-Type"), resp.Header.Get("Content-Length"), answer
}

// progressServer has a tool that reports progress to a caller who asked
// for it, then answers.
func progressServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "slow"}, nil)
	s.AddTool(&mcp.Tool{Name: "work", Description: "Work, reporting progress.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if token := req.Params.GetProgressToken(); token != nil {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1, Total: 2, Message: "half way"})
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	return s
}

// TestEdgeAnswersInJSONWhenNothingStreams: a call whose answer is all
// there is to send gets it as a plain JSON body, in both eras; a call
// with progress to report gets an event stream carrying the progress and
// then the answer.
func TestEdgeAnswersInJSONWhenNothingStreams(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("slow", serveHTTP(t, progressServer()).URL)}})
	ts := serveEdge(t, tg, EdgeOptions{})
	v := StatelessRevision
	routing := map[string]string{"Mcp-Protocol-Version": v, "Mcp-Method": "tools/call", "Mcp-Name": ExecuteToolName}
	call := func(id int, meta string) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"execute_tool","arguments":{"tool_name":"slow.work","arguments":{}},"_meta":{` + meta + `"io.modelcontextprotocol/protocolVersion":"` + v + `","io.modelcontextprotocol/clientCapabilities":{}}}}`
	}

	// 2026-07-28, nothing to stream: JSON, with its length.
	ct, length, body := postForAnswer(t, ts.URL, call(1, ""), routing)
	var resp struct {
		ID     int
		Result mcp.CallToolResult
	}
	if ct != "application/json" || length != strconv.Itoa(len(body)) || json.Unmarshal([]byte(body), &resp) != nil || resp.ID != 1 || resp.Result.IsError {
		t.Errorf("a plain call: Content-Type %q, Content-Length %q, body %s; want the JSON-RPC answer as application/json with its length", ct, length, body)
	}

	// 2026-07-28 with a progress token: the progress, then the answer, as
	// an event stream.
	ct, _, body = postForAnswer(t, ts.URL, call(2, `"progressToken":"p-2",`), routing)
	progress, answer := strings.Index(body, "notifications/progress"), strings.Index(body, `"id":2`)
	if !strings.HasPrefix(ct, "text/event-stream") || progress < 0 || answer < progress {
		t.Errorf("a call reporting progress: Content-Type %q, body %s; want an event stream with the progress before the answer", ct, body)
	}

	// An earlier revision, with a session: initialize and a call each
	// answer in JSON, and the session ID still reaches the client.
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	r, initBody := postHeader(t, ts.URL, init, nil)
	session := r.Header.Get(headerSessionID)
	if r.Header.Get("Content-Type") != "application/json" || session == "" || !strings.Contains(initBody, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: Content-Type %q, session %q, body %s", r.Header.Get("Content-Type"), session, initBody)
	}
	old := map[string]string{headerSessionID: session, "Mcp-Protocol-Version": "2025-11-25"}
	if status, body := post(t, ts.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, old); status != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", status, body)
	}
	ct, _, body = postForAnswer(t, ts.URL, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute_tool","arguments":{"tool_name":"slow.work","arguments":{}}}}`, old)
	if ct != "application/json" || !strings.Contains(body, `"done"`) {
		t.Errorf("an earlier revision's call: Content-Type %q, body %s", ct, body)
	}
	ct, _, body = postForAnswer(t, ts.URL, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"execute_tool","arguments":{"tool_name":"slow.work","arguments":{}},"_meta":{"progressToken":7}}}`, old)
	if !strings.HasPrefix(ct, "text/event-stream") || !strings.Contains(body, "half way") || !strings.Contains(body, `"done"`) {
		t.Errorf("an earlier revision's call with progress: Content-Type %q, body %s", ct, body)
	}

	// The SDK's client, in both eras, reads either form.
	for _, version := range []string{"", "2025-11-25"} {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "slow.work", "arguments": map[string]any{}}})
		if err != nil || res.IsError {
			t.Errorf("version %q: %v %v", version, err, res)
		}
		cs.Close()
	}
}

func TestEventData(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"event: message\nid: a_1\ndata: {\"id\":1}\n\n", `{"id":1}`, true},
		{"data: {}\n\n", `{}`, true},
		{"event: close\nretry: 10\n\n", "", false},
		{"event: message\ndata: {\"a\":\ndata: 1}\n\n", "", false},
		{"event: message\ndata: {}\n", "", false},
		{": comment\ndata: {}\n\n", "", false},
	} {
		got, ok := eventData([]byte(tc.in))
		if ok != tc.ok || string(got) != tc.want {
			t.Errorf("eventData(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	for in, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"result":{}}`:                     true,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":""}}`: true,
		`{"jsonrpc":"2.0","method":"notifications/progress"}`:      false,
		`{"jsonrpc":"2.0","id":2,"method":"elicitation/create"}`:   false,
		`[{"jsonrpc":"2.0","id":1,"result":{}}]`:                   false,
	} {
		if got := isResponse([]byte(in)); got != want {
			t.Errorf("isResponse(%s) = %v", in, got)
		}
	}
}
