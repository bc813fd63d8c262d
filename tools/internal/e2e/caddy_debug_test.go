package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
)

// caddyGoroutines is the number of goroutines in the Caddy process (see
// procs.Goroutines).
func caddyGoroutines(t *testing.T, adminPort int) int {
	t.Helper()
	n, err := procs.Goroutines(adminPort)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// caddyHeapInUse is the Caddy process's live heap (see procs.LiveHeap).
func caddyHeapInUse(t *testing.T, adminPort int) uint64 {
	t.Helper()
	n, err := procs.LiveHeap(adminPort)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// idleUpstreamConns marks the goroutines of idle keep-alive connections to
// HTTP upstreams: the gateway's connection pool keeps them for a while by
// design, so they are not leaks.
const idleUpstreamConns = "net/http.(*persistConn)"

// caddyGoroutinesBesidesPools is caddyGoroutines without the goroutines of
// pooled idle upstream connections.
func caddyGoroutinesBesidesPools(t *testing.T, adminPort int) int {
	t.Helper()
	n, err := procs.GoroutinesExcept(adminPort, idleUpstreamConns)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// settledGoroutines waits until Caddy's goroutine count, pooled idle
// upstream connections aside, is at most limit, and returns the last count
// read (above limit if it never got there).
func settledGoroutines(t *testing.T, adminPort, limit int, within time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		n := caddyGoroutinesBesidesPools(t, adminPort)
		if n <= limit || time.Now().After(deadline) {
			return n
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// loopbackGateway is a Caddyfile for testenv.StartCaddy: admin endpoint
// on, and a gateway at /mcp on loopback whose block holds lines (options
// and upstreams, one per line).
func loopbackGateway(lines ...string) string {
	return "{\n\tadmin 127.0.0.1:{ADMIN_PORT}\n\tpersist_config off\n}\n:{HTTP_PORT} {\n\tbind 127.0.0.1\n\tmcp_gateway /mcp {\n\t\t" +
		strings.Join(lines, "\n\t\t") + "\n\t}\n}\n"
}
