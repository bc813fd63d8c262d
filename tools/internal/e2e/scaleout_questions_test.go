package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// questionsScaleOut is the stateless recipe (front-stateless and two
// gateway-stateless instances, a and b) in front of the go-sdk conformance
// server.
type questionsScaleOut struct {
	front     string
	instances map[string]string // name -> the instance's own MCP URL
}

// startQuestionsScaleOut runs the stateless recipe in front of the go-sdk
// conformance server, run statelessly (it then speaks 2026-07-28 and asks
// with input_required) or with sessions (an earlier revision: it asks with
// requests of its own, which with UPSTREAM_SESSION=per_client the
// instances hold calls open for). env goes to both instances.
func startQuestionsScaleOut(t *testing.T, statelessUpstream bool, env ...string) *questionsScaleOut {
	t.Helper()
	port := testenv.FreePort(t)
	p := testenv.Start(t, "", nil, testenv.EverythingServer(t), "-http", fmt.Sprintf("127.0.0.1:%d", port), fmt.Sprintf("-stateless=%v", statelessUpstream))
	testenv.WaitPort(t, port, p)
	upstream := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	so := &questionsScaleOut{instances: map[string]string{}}
	var addrs []string
	for _, name := range []string{"a", "b"} {
		gp := testenv.FreePort(t)
		testenv.StartCaddyFile(t, "examples/scaleout/gateway-stateless.Caddyfile", gp,
			append([]string{"GATEWAY_NAME=" + name, fmt.Sprint("GATEWAY_PORT=", gp), "UPSTREAM_URL=" + upstream, "GATEWAY_GRACE_PERIOD=1s"}, env...)...)
		addrs = append(addrs, fmt.Sprint("127.0.0.1:", gp))
		so.instances[name] = fmt.Sprintf("http://127.0.0.1:%d/mcp", gp)
	}
	fp := testenv.FreePort(t)
	testenv.StartCaddyFile(t, "examples/scaleout/front-stateless.Caddyfile", fp, fmt.Sprint("FRONT_PORT=", fp), "GATEWAY_A="+addrs[0], "GATEWAY_B="+addrs[1])
	so.front = fmt.Sprintf("http://127.0.0.1:%d/mcp", fp)
	return so
}

// rawExecute sends one 2026-07-28 execute_tool request to url, with the
// answers and state of a previous round if state is set, and returns the
// JSON-RPC answer.
func rawExecute(t *testing.T, url, tool string, args map[string]any, state string, answers map[string]any) map[string]any {
	t.Helper()
	params := map[string]any{
		"name":      "execute_tool",
		"arguments": map[string]any{"tool_name": tool, "arguments": args},
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}},
		},
	}
	if state != "" {
		params["requestState"], params["inputResponses"] = state, answers
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
	req, _ := http.NewRequest("POST", url, strings.NewReader(string(body)))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "execute_tool"} {
		req.Header.Set(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var msg map[string]any
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if json.Unmarshal([]byte(data), &m) == nil && m["id"] != nil {
					msg = m
				}
			}
		}
	} else {
		b, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(b, &msg)
	}
	if msg == nil {
		t.Fatalf("no JSON-RPC answer from %s (status %d)", url, resp.StatusCode)
	}
	return msg
}

// firstRound asks url for tool and returns the state and the ID of the
// one question the answer must carry.
func firstRound(t *testing.T, url, tool string, args map[string]any) (state, question string) {
	t.Helper()
	msg := rawExecute(t, url, tool, args, "", nil)
	res, _ := msg["result"].(map[string]any)
	reqs, _ := res["inputRequests"].(map[string]any)
	state, _ = res["requestState"].(string)
	if res["resultType"] != "input_required" || len(reqs) != 1 || state == "" {
		t.Fatalf("first round of %s at %s: %v, want input_required with one question", tool, url, msg)
	}
	for id := range reqs {
		question = id
	}
	return state, question
}

// answeringScaleoutClient connects a 2026-07-28 go-sdk client through url
// that answers elicitations with a name.
func answeringScaleoutClient(t *testing.T, url string) (*mcp.ClientSession, *scaleoutRecorder) {
	t.Helper()
	rec := &scaleoutRecorder{}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "scaleout-questions"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "username": "ada"}}, nil
		},
	}).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: rec}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v < "2026-07-28" || cs.ID() != "" {
		t.Fatalf("the client speaks %s with session %q; the test needs 2026-07-28", v, cs.ID())
	}
	return cs, rec
}

// accepted is the answer of a client accepting an elicitation.
var accepted = map[string]any{"action": "accept", "content": map[string]any{"name": "Ada", "username": "ada"}}

// resultText is the first text of a JSON-RPC answer's result, and whether
// the answer is a success (no JSON-RPC error, no tool error).
func resultText(msg map[string]any) (string, bool) {
	res, _ := msg["result"].(map[string]any)
	if res == nil || res["isError"] == true {
		return fmt.Sprint(msg), false
	}
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		return "", true
	}
	first, _ := content[0].(map[string]any)
	text, _ := first["text"].(string)
	return text, true
}

// TestScaleOutQuestions runs the stateless scale-out recipe with
// 2026-07-28 clients whose calls an upstream answers with questions:
// instances sharing state_secret accept each other's request states, and
// instances without one refuse them; a call an instance holds open (an
// upstream of an earlier revision, per_client) gets its answers only on
// that instance, and the front sends its retries there.
func TestScaleOutQuestions(t *testing.T) {
	const statelessTool = "tools.test_input_required_result_elicitation"
	t.Run("shared secret", func(t *testing.T) {
		so := startQuestionsScaleOut(t, true, "MCP_STATE_SECRET=scaleout-test-secret")
		state, q := firstRound(t, so.instances["a"], statelessTool, map[string]any{})
		if !strings.HasPrefix(state, "a.") {
			t.Errorf("state %.12q... does not start with the instance's prefix", state)
		}
		if text, ok := resultText(rawExecute(t, so.instances["b"], statelessTool, map[string]any{}, state, map[string]any{q: accepted})); !ok || text != "Hello, Ada!" {
			t.Errorf("b answering a's state: %s", text)
		}
		// A client through the front, whatever its balancing does.
		cs, _ := answeringScaleoutClient(t, so.front)
		for i := range 3 {
			if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute_tool", Arguments: map[string]any{"tool_name": statelessTool, "arguments": map[string]any{}}}); err != nil || res.IsError {
				t.Errorf("call %d through the front: %v %v", i, res, err)
			}
		}
	})
	t.Run("no shared secret", func(t *testing.T) {
		so := startQuestionsScaleOut(t, true)
		state, q := firstRound(t, so.instances["a"], statelessTool, map[string]any{})
		msg := rawExecute(t, so.instances["b"], statelessTool, map[string]any{}, state, map[string]any{q: accepted})
		if text, ok := resultText(msg); ok || !strings.Contains(text, "requestState") {
			t.Errorf("b answering a's state without a shared secret: %s; want it refused", text)
		}
		if text, ok := resultText(rawExecute(t, so.instances["a"], statelessTool, map[string]any{}, state, map[string]any{q: accepted})); !ok || text != "Hello, Ada!" {
			t.Errorf("a answering its own state: %s", text)
		}
	})
	t.Run("held call", func(t *testing.T) {
		so := startQuestionsScaleOut(t, false, "MCP_STATE_SECRET=scaleout-test-secret", "UPSTREAM_SESSION=per_client")
		args := map[string]any{"message": "Your username?"}
		// Only the instance that holds the call can answer its retry.
		state, q := firstRound(t, so.instances["a"], "tools.test_elicitation", args)
		if text, ok := resultText(rawExecute(t, so.instances["b"], "tools.test_elicitation", args, state, map[string]any{q: accepted})); ok {
			t.Errorf("b answered a call a holds: %s", text)
		}
		if text, ok := resultText(rawExecute(t, so.instances["a"], "tools.test_elicitation", args, state, map[string]any{q: accepted})); !ok || !strings.Contains(text, "ada") {
			t.Errorf("a answering the call it holds: %s", text)
		}
		// Through the front: each retry is routed to its call's instance.
		cs, rec := answeringScaleoutClient(t, so.front)
		for i := range 4 {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute_tool", Arguments: map[string]any{"tool_name": "tools.test_elicitation", "arguments": args}})
			if err != nil || res.IsError {
				t.Errorf("held call %d through the front: %v %v", i, res, err)
			}
		}
		var calls []scaleoutHop
		for _, h := range rec.snapshot() {
			if h.method == "tools/call" {
				calls = append(calls, h)
			}
		}
		if len(calls) != 8 {
			t.Fatalf("%d tools/call requests for 4 held calls of two rounds each: %+v", len(calls), calls)
		}
		for i := 0; i+1 < len(calls); i += 2 {
			if calls[i].instance != calls[i+1].instance || calls[i+1].route != "held" {
				t.Errorf("held call %d: first round on %q, its retry on %q by the %q route", i/2, calls[i].instance, calls[i+1].instance, calls[i+1].route)
			}
		}
	})
}
