package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
)

// TestNoIdentityWarnsOnce: with access policies and nothing that names
// the caller (no authentication, the default identity
// {http.auth.user.id} empty), sessions can only be bound per policy. The
// gateway says so in its log, once, however many requests follow, with the
// remedy; its tool call lines show the caller as "<policy>/-".
func TestNoIdentityWarnsOnce(t *testing.T) {
	echo := testenv.EchoServer(t)
	caddy := testenv.StartCaddy(t, `{
	admin 127.0.0.1:{ADMIN_PORT}
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	@admins header X-Role admin
	mcp_gateway /mcp {
		access @admins {
			allow *
		}
		access {
			allow echo.echo
		}
		upstream echo `+echo+`
	}
}
`)
	url := caddy.URL("/mcp")
	for _, headers := range []map[string]string{{"X-Role": "admin"}, {}, {}} {
		for _, rev := range wireRevisions {
			c := connectWire(t, url, headers, rev)
			if text, isError := c.request("tools/call", map[string]any{"name": "execute_tool", "arguments": map[string]any{"tool_name": "echo.echo", "arguments": map[string]any{"text": "hi"}}}).toolText(t); isError || text != "hi" {
				t.Errorf("a call at %s with %v: %q", rev, headers, text)
			}
		}
	}
	var warnings []string
	identities := map[string]int{}
	for _, line := range logLinesOnceThere(caddy, `"msg":"tool call"`, 6) {
		if strings.Contains(line, "a request has no identity") {
			warnings = append(warnings, line)
		}
		if strings.Contains(line, `"msg":"tool call"`) {
			var entry struct{ Identity string }
			if err := json.Unmarshal([]byte(line), &entry); err != nil {
				t.Fatalf("log line %q: %v", line, err)
			}
			identities[entry.Identity]++
		}
	}
	if len(warnings) != 1 {
		t.Fatalf("%d warnings that a request has no identity, want 1:\n%s", len(warnings), strings.Join(warnings, "\n"))
	}
	var w struct{ Level, Msg, Policy string }
	if err := json.Unmarshal([]byte(warnings[0]), &w); err != nil {
		t.Fatal(err)
	}
	if w.Level != "warn" || w.Policy == "" || !strings.Contains(w.Msg, "{http.auth.user.id}") || !strings.Contains(w.Msg, "set `identity`") {
		t.Errorf("the warning does not say which placeholder was empty, under which policy, and what to do: %s", warnings[0])
	}
	if identities["admins/-"] != 2 || identities["default/-"] != 4 || len(identities) != 2 {
		t.Errorf("tool call lines by identity: %v, want admins/- 2 and default/- 4", identities)
	}
}

// logLinesOnceThere returns Caddy's log lines once at least n of them hold
// substr, or after 10 seconds: a request's log line may be written just
// after its answer.
func logLinesOnceThere(caddy *testenv.CaddyInstance, substr string, n int) []string {
	deadline := time.Now().Add(10 * time.Second)
	for {
		out := caddy.Output()
		if strings.Count(out, substr) >= n || time.Now().After(deadline) {
			return strings.Split(out, "\n")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
