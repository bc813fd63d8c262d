package e2e

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
)

// TestSecuritySupervisionSIGKILL runs a real Caddy whose stdio upstream is
// the npm memory server started by a shell that first starts a background
// job and a daemon in a session of its own (setsid), then SIGKILLs Caddy:
// within a few seconds no process of the upstream's tree is left.
func TestSecuritySupervisionSIGKILL(t *testing.T) {
	marker := "TREE_MARKER=" + rand.Text()
	caddy := testenv.StartCaddy(t, fmt.Sprintf(`{
	admin 127.0.0.1:{ADMIN_PORT}
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	mcp_gateway /mcp {
		upstream memory {
			command sh -c "sleep 1000 & setsid sleep 1001 & exec node {NODE_DIR}/node_modules/@modelcontextprotocol/server-memory/dist/index.js"
			env MEMORY_FILE_PATH %s
			env TREE_MARKER %s
		}
	}
}
`, filepath.Join(t.TempDir(), "memory.jsonl"), strings.TrimPrefix(marker, "TREE_MARKER=")))
	t.Cleanup(func() {
		for _, pid := range testenv.ProcessesWithEnv(marker) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	waitUntil(t, "the stdio upstream to be ready", func() bool {
		body, err := procs.AdminGet(caddy.AdminPort, "/mcp_gateway/")
		return err == nil && strings.Contains(body, `"state": "ready"`)
	})
	// node, sleep, the setsid sleep (and the supervisor).
	if n := len(testenv.ProcessesWithEnv(marker)); n < 3 {
		t.Fatalf("%d processes of the upstream's tree, want at least 3", n)
	}

	syscall.Kill(caddy.Cmd.Process.Pid, syscall.SIGKILL)
	<-caddy.Exited()
	killed := time.Now()
	for {
		left := testenv.ProcessesWithEnv(marker)
		if len(left) == 0 {
			t.Logf("the upstream's tree was gone %s after Caddy's SIGKILL", time.Since(killed).Round(time.Millisecond))
			return
		}
		if time.Since(killed) > 5*time.Second {
			var desc []string
			for _, pid := range left {
				cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				desc = append(desc, fmt.Sprintf("%d %q", pid, strings.ReplaceAll(string(cmdline), "\x00", " ")))
			}
			t.Fatalf("5s after Caddy's SIGKILL, processes of the upstream's tree are left: %s", strings.Join(desc, "; "))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
