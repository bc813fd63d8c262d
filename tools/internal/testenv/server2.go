package testenv

import (
	"fmt"
	"path/filepath"
	"testing"
)

// StartServer2 runs internal/e2e/node/server2.mjs, an MCP server of the
// official TypeScript SDK 2.x that speaks only the 2026-07-28 revision
// (stateless streamable HTTP, the initialize handshake refused) and asks
// its client questions with input_required results, and returns its URL.
// Its tools are documented in the script.
func StartServer2(t testing.TB) string {
	t.Helper()
	dir := NodeDir(t)
	port := FreePort(t)
	p := Start(t, dir, nil, "node", filepath.Join(dir, "server2.mjs"), fmt.Sprint(port))
	WaitPort(t, port, p)
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}
