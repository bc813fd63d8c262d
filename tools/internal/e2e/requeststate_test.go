package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
)

// TestRequestStateBoundToCaller drives multi round-trip requests with raw
// HTTP through a real Caddy with basic_auth, in passthrough and meta mode,
// in front of a 2026-07-28-only upstream: the requestState the gateway
// hands alice works for alice's retry of that request, and is refused,
// exactly as a state the gateway never issued is refused, when bob
// presents it, when it is altered, or when it comes with another tool;
// alice's retry with other arguments is refused as such.
func TestRequestStateBoundToCaller(t *testing.T) {
	modern := testenv.StartServer2(t)
	caddy := testenv.StartCaddy(t, fmt.Sprintf(`{
	admin off
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	basic_auth {
		alice $2a$14$dBURtE5EkGyv72YOaaNbMut3285UXQ0nbtc5OMJJR38kdoyZdeXpe
		bob $2a$14$PzmDok9QDEj3f6Q4HWfxEeLIgdMdphEPizYxU7hhLJmrey/4RAZdK
	}
	mcp_gateway /pass* {
		name passthrough
		mode passthrough
		upstream modern %[1]s
	}
	mcp_gateway /meta* {
		name meta
		upstream modern %[1]s
	}
}
`, modern))
	alice := map[string]string{"Authorization": basic("alice", "alice-password")}
	bob := map[string]string{"Authorization": basic("bob", "bob-password")}
	caps := map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}
	answers := func(user string) map[string]any {
		return map[string]any{"user": map[string]any{"action": "accept", "content": map[string]any{"username": user}}}
	}

	for _, mode := range []string{"passthrough", "meta"} {
		t.Run(mode, func(t *testing.T) {
			url := caddy.URL("/pass")
			if mode == "meta" {
				url = caddy.URL("/meta")
			}
			// call calls a tool of the upstream as who, in this mode,
			// retrying with state and answers if given.
			call := func(who map[string]string, tool string, args map[string]any, state string, answers map[string]any) rpcAnswer {
				params := map[string]any{"name": "modern_" + tool, "arguments": args}
				if mode == "meta" {
					params = map[string]any{"name": "execute_tool", "arguments": map[string]any{"tool_name": "modern." + tool, "arguments": args}}
				}
				if state != "" {
					params["requestState"] = state
					params["inputResponses"] = answers
				}
				return post2026(t, url, who, "tools/call", params["name"].(string), params, caps)
			}
			ask := map[string]any{"message": "Who are you?"}
			stateFor := func(who map[string]string, name string) string {
				var res struct {
					ResultType    string                     `json:"resultType"`
					RequestState  string                     `json:"requestState"`
					InputRequests map[string]json.RawMessage `json:"inputRequests"`
				}
				a := call(who, "ask_elicitation", ask, "", nil)
				if a.Error != nil || json.Unmarshal(a.Result, &res) != nil || res.ResultType != "input_required" || res.RequestState == "" || res.InputRequests["user"] == nil {
					t.Fatalf("%s's first call: HTTP %d, error %+v, result %s; want input_required with a requestState and the question", name, a.Status, a.Error, a.Result)
				}
				return res.RequestState
			}
			// refusal describes how a retry was refused ("" if it was not).
			refusal := func(a rpcAnswer) string {
				if a.Error != nil {
					return fmt.Sprintf("HTTP %d, JSON-RPC error %d: %s", a.Status, a.Error.Code, a.Error.Message)
				}
				if r := a.tool(t); r.IsError {
					return fmt.Sprintf("HTTP %d, tool error: %s", a.Status, r.text())
				}
				return ""
			}

			aliceState := stateFor(alice, "alice")
			echo := map[string]any{"text": "not what the state was for"}
			// unknown is how a state the gateway never issued is refused,
			// for each tool.
			unknown := map[string]string{}
			for tool, args := range map[string]map[string]any{"ask_elicitation": ask, "echo": echo} {
				unknown[tool] = refusal(call(alice, tool, args, "s1.eyJtIjoidG9vbHMvY2FsbCJ9.bm90IGEgbWFj", answers("alice")))
				if !strings.Contains(unknown[tool], "requestState") {
					t.Fatalf("%s with a state the gateway never issued: %q, want a refusal that names requestState", tool, unknown[tool])
				}
			}
			t.Logf("a state never issued is refused so: %s", unknown["ask_elicitation"])

			flip := func(s string, i int) string {
				b := []byte(s)
				if b[i] == 'A' {
					b[i] = 'B'
				} else {
					b[i] = 'A'
				}
				return string(b)
			}
			mac := strings.LastIndexByte(aliceState, '.')
			for _, c := range []struct{ what, state, tool string }{
				{"bob presenting alice's state", aliceState, "ask_elicitation"},
				{"alice's state with its payload altered", flip(aliceState, mac-2), "ask_elicitation"},
				{"alice's state with its signature altered", flip(aliceState, mac+2), "ask_elicitation"},
				{"alice's state with another tool", aliceState, "echo"},
			} {
				who, args := alice, ask
				if strings.HasPrefix(c.what, "bob") {
					who = bob
				}
				if c.tool == "echo" {
					args = echo
				}
				if got := refusal(call(who, c.tool, args, c.state, answers("mallory"))); got != unknown[c.tool] {
					t.Errorf("%s: %q, want it refused as a state never issued: %q", c.what, got, unknown[c.tool])
				}
			}

			// With other arguments, alice's own state is refused, saying
			// so and what to do, without repeating them; it stays good for
			// her retry with the arguments it was issued for (below).
			other := map[string]any{"message": "Who else might you be?"}
			if got := refusal(call(alice, "ask_elicitation", other, aliceState, answers("alice"))); !strings.Contains(got, "other arguments") ||
				!strings.Contains(got, "without requestState and inputResponses") || strings.Contains(got, "Who else") || got == unknown["ask_elicitation"] {
				t.Errorf("alice's state with other arguments: %q, want a refusal that says the arguments differ and what to do, without them", got)
			}

			// The state works for the caller it was issued to, and bob's
			// own works for him.
			if r := call(alice, "ask_elicitation", ask, aliceState, answers("alice")).tool(t); r.IsError || r.text() != "elicited: action=accept username=alice" {
				t.Errorf("alice's own retry: %+v", r)
			}
			if r := call(bob, "ask_elicitation", ask, stateFor(bob, "bob"), answers("bob")).tool(t); r.IsError || r.text() != "elicited: action=accept username=bob" {
				t.Errorf("bob's own retry: %+v", r)
			}
		})
	}
}
