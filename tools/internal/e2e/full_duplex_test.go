package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
)

// callResult is a callTool answer with what the client received meanwhile.
type callResult struct {
	Result       toolResult       `json:"result"`
	Progress     []map[string]any `json:"progress"`
	Logs         []map[string]any `json:"logs"`
	Elicitations []map[string]any `json:"elicitations"`
}

func callFull(t *testing.T, c *testenv.TSClient, tool string, args map[string]any, progress bool) callResult {
	t.Helper()
	v := c.MustDo(map[string]any{"op": "callTool", "name": tool, "arguments": args, "progress": progress})
	b, _ := json.Marshal(v)
	var r callResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestMetaModeFullDuplex shows execute_tool relaying, through a real Caddy,
// the upstream's progress notifications to the client's progress token,
// an elicitation round trip, and log messages at the client's level.
func TestMetaModeFullDuplex(t *testing.T) {
	everythingURL, _ := testenv.StartEverythingServer(t)
	caddy := testenv.StartCaddy(t, fmt.Sprintf(`{
	admin off
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	mcp_gateway /mcp* {
		upstream everything %s {
			session per_client
		}
	}
}
`, everythingURL))
	client := testenv.StartTSClient(t)
	client.MustDo(map[string]any{"op": "connect", "url": caddy.URL("/mcp"),
		"elicitation": map[string]any{"action": "accept", "content": map[string]any{"username": "octocat"}}})
	client.MustDo(map[string]any{"op": "setLevel", "level": "info"})

	prog := callFull(t, client, "execute_tool", map[string]any{"tool_name": "everything.test_tool_with_progress"}, true)
	if prog.Result.IsError || len(prog.Progress) != 3 {
		t.Errorf("progress through execute_tool: %d notifications (want 3), result %+v", len(prog.Progress), prog.Result)
	}
	for i, p := range prog.Progress {
		if want := float64(i * 50); p["progress"] != want || p["total"] != 100.0 {
			t.Errorf("progress notification %d = %v, want %v of 100", i, p, want)
		}
	}

	eli := callFull(t, client, "execute_tool", map[string]any{"tool_name": "everything.test_elicitation", "arguments": map[string]any{"message": "Who are you?"}}, false)
	if len(eli.Elicitations) != 1 || eli.Elicitations[0]["message"] != "Who are you?" {
		t.Errorf("the client got elicitations %v, want the upstream's one", eli.Elicitations)
	}
	if eli.Result.IsError || !strings.Contains(eli.Result.text(), "action=accept") || !strings.Contains(eli.Result.text(), "octocat") {
		t.Errorf("elicitation round trip result = %+v, want the client's answer back upstream", eli.Result)
	}

	logs := callFull(t, client, "execute_tool", map[string]any{"tool_name": "everything.test_tool_with_logging"}, true)
	if len(logs.Logs) != 3 || logs.Logs[0]["data"] != "Tool execution started" {
		t.Errorf("log messages through execute_tool = %v, want the upstream's three", logs.Logs)
	}
}

// TestClientsSeeOnlyTheirOwnTraffic runs two clients at once against two
// upstreams with per-client sessions: each client's elicitations, progress
// and log messages reach that client only.
func TestClientsSeeOnlyTheirOwnTraffic(t *testing.T) {
	one, _ := testenv.StartEverythingServer(t)
	two, _ := testenv.StartEverythingServer(t)
	caddy := testenv.StartCaddy(t, fmt.Sprintf(`{
	admin off
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	mcp_gateway /mcp* {
		mode passthrough
		upstream one %s {
			session per_client
		}
		upstream two %s {
			session per_client
		}
	}
}
`, one, two))
	var wg sync.WaitGroup
	for _, name := range []string{"alice", "bob"} {
		client := testenv.StartTSClient(t)
		client.MustDo(map[string]any{"op": "connect", "url": caddy.URL("/mcp"),
			"elicitation": map[string]any{"action": "accept", "content": map[string]any{"username": name}}})
		client.MustDo(map[string]any{"op": "setLevel", "level": "info"})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 3 {
				for _, up := range []string{"one", "two"} {
					eli := callFull(t, client, up+"_test_elicitation", map[string]any{"message": name + " round " + fmt.Sprint(round)}, false)
					if len(eli.Elicitations) != 1 || eli.Elicitations[0]["message"] != name+" round "+fmt.Sprint(round) {
						t.Errorf("%s via %s got elicitations %v", name, up, eli.Elicitations)
					}
					if !strings.Contains(eli.Result.text(), name) {
						t.Errorf("%s via %s: result %q lacks its own answer", name, up, eli.Result.text())
					}
					logs := callFull(t, client, up+"_test_tool_with_logging", nil, true)
					if len(logs.Logs) != 3 {
						t.Errorf("%s via %s received %d log messages, want its own 3", name, up, len(logs.Logs))
					}
					prog := callFull(t, client, up+"_test_tool_with_progress", nil, true)
					if len(prog.Progress) != 3 {
						t.Errorf("%s via %s received %d progress notifications, want its own 3", name, up, len(prog.Progress))
					}
				}
			}
		}()
	}
	wg.Wait()
}
