package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
)

// TestCaddyValidateReportsFileAndLine runs `caddy validate` on bad configs,
// as an operator would, and checks each error names the file, the line and
// what is wrong.
func TestCaddyValidateReportsFileAndLine(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, config, want string
	}{
		{"gateway.Caddyfile", ":8080 {\n\tmcp_gateway {\n\t\tupstream crm {\n\t\t\turl https://crm.internal/mcp\n\t\t\ttimeout soon\n\t\t}\n\t}\n}\n",
			`upstream "crm": timeout must be a positive duration like 30s, got "soon", at ` + filepath.Join(dir, "gateway.Caddyfile") + ":5"},
		{"missing.Caddyfile", ":8080 {\n\tmcp_gateway {\n\t\tupstream crm {\n\t\t\tdescription CRM\n\t\t}\n\t}\n}\n",
			"needs either a `url` (HTTP upstream) or a `command` (stdio upstream), at " + filepath.Join(dir, "missing.Caddyfile") + ":3"},
		{"option.Caddyfile", ":8080 {\n\tmcp_gateway {\n\t\tretries 3\n\t}\n}\n",
			`unknown mcp_gateway option "retries"; options are name, mode, pin, instructions, session_timeout, stateless, max_request_body, max_result_size, max_sessions, max_sessions_per_identity, identity, state_secret, log_values, session_id_prefix, allowed_hosts, allowed_origins, search, access, description_check, on_tool_change, max_tools_per_upstream, max_tool_size and upstream, at ` + filepath.Join(dir, "option.Caddyfile") + ":3"},
		// Two unnamed gateways in one config would share one gateway.
		{"two.Caddyfile", ":8080 {\n\tmcp_gateway {\n\t\tmode passthrough\n\t\tupstream crm http://127.0.0.1:1/mcp\n\t}\n}\n:8081 {\n\tmcp_gateway {\n\t\tupstream crm http://127.0.0.1:1/mcp\n\t}\n}\n",
			"two mcp_gateway handlers in this config are named \"default\"; give each its own `name`"},
		// JSON has no lines; the error names the upstream instead.
		{"gateway.json", `{"apps":{"http":{"servers":{"s":{"listen":[":8080"],"routes":[{"handle":[{"handler":"mcp_gateway","upstreams":[{"name":"crm","url":"https://crm/mcp","command":"x"}]}]}]}}}}}`,
			`upstream "crm": has both a ` + "`url` and a `command`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, []byte(tc.config), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"validate", "--config", path}
			if strings.HasSuffix(tc.name, ".Caddyfile") {
				args = append(args, "--adapter", "caddyfile")
			}
			out, err := testenv.RunCaddy(t, dir, args...)
			if err == nil {
				t.Fatalf("caddy validate accepted a bad config:\n%s", out)
			}
			// Caddy logs the error as JSON: read it unescaped.
			if !strings.Contains(strings.ReplaceAll(out, `\"`, `"`), tc.want) {
				t.Errorf("caddy validate said:\n%s\nwant it to contain:\n%s", out, tc.want)
			}
		})
	}
	// A good config validates without reaching its upstreams: no
	// connection attempt (nothing listens on port 1, so one would be
	// logged) and no stdio process started (it would create marker).
	good := filepath.Join(dir, "good.Caddyfile")
	marker := filepath.Join(dir, "stdio-started")
	os.WriteFile(good, []byte(":8080 {\n\tmcp_gateway {\n\t\tupstream crm http://127.0.0.1:1/mcp\n\t\tupstream files {\n\t\t\tcommand sh -c \"touch "+marker+"; sleep 5\"\n\t\t}\n\t}\n}\n"), 0o644)
	out, err := testenv.RunCaddy(t, dir, "validate", "--config", good, "--adapter", "caddyfile")
	if err != nil || !strings.Contains(out, "Valid configuration") {
		t.Errorf("a good config fails validation: %v\n%s", err, out)
	}
	for _, connecting := range []string{"upstream unavailable", "connection refused", "127.0.0.1:1"} {
		if strings.Contains(out, connecting) {
			t.Errorf("caddy validate reached an upstream (its output has %q):\n%s", connecting, out)
		}
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Error("caddy validate started a stdio upstream's process")
	}
}

// TestStdioUpstreamEndsWithCaddy checks that stopping Caddy ends the stdio
// upstream's process: no orphans.
func TestStdioUpstreamEndsWithCaddy(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "orphan-check.jsonl")
	caddy := testenv.StartCaddy(t, `{
	admin 127.0.0.1:{ADMIN_PORT}
	persist_config off
}
http://127.0.0.1:{HTTP_PORT} {
	mcp_gateway {
		upstream memory {
			command node {NODE_DIR}/node_modules/@modelcontextprotocol/server-memory/dist/index.js
			env MEMORY_FILE_PATH `+marker+`
		}
	}
}
`)
	var pid int
	deadline := time.Now().Add(30 * time.Second)
	for pid == 0 {
		pid = findProcessWithEnv("MEMORY_FILE_PATH=" + marker)
		if time.Now().After(deadline) {
			t.Fatal("the stdio upstream never started")
		}
		time.Sleep(50 * time.Millisecond)
	}
	syscall.Kill(caddy.Cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-caddy.Exited():
	case <-time.After(20 * time.Second):
		t.Fatal("caddy did not exit on SIGTERM")
	}
	if err := syscall.Kill(pid, 0); err == nil {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the stdio upstream (pid %d) outlived Caddy", pid)
	}
}

// findProcessWithEnv returns the pid of a process of a stdio upstream
// whose environment holds entry, or 0.
func findProcessWithEnv(entry string) int {
	if pids := testenv.UpstreamProcessesWithEnv(entry); len(pids) > 0 {
		return pids[0]
	}
	return 0
}
