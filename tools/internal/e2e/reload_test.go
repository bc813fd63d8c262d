package e2e

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// reloadCaddyfile is the config before (removed "gone", everything with a
// 20s timeout) and after (no "gone", a 30s timeout: a changed connection)
// the reload; "mem" stays as it is. The server speaks HTTP/2 without TLS
// too (h2c), for the reason h2cClient gives.
func reloadCaddyfile(before bool, everythingURL, memFile, goneFile string) string {
	timeout, gone := "30s", ""
	if before {
		timeout = "20s"
		gone = `
		upstream gone {
			command node {NODE_DIR}/node_modules/@modelcontextprotocol/server-memory/dist/index.js
			env MEMORY_FILE_PATH ` + goneFile + `
		}`
	}
	return fmt.Sprintf(`{
	admin 127.0.0.1:{ADMIN_PORT}
	persist_config off
	servers {
		protocols h1 h2 h2c
	}
}
:{HTTP_PORT} {
	bind 127.0.0.1
	mcp_gateway /mcp* {
		upstream mem {
			command node {NODE_DIR}/node_modules/@modelcontextprotocol/server-memory/dist/index.js
			env MEMORY_FILE_PATH %s
		}
		upstream ev %s {
			timeout %s
		}%s
	}
}
`, memFile, everythingURL, timeout, gone)
}

// TestReloadUnderLoad reloads Caddy's config while clients call tools on
// an unchanged stdio upstream and on a changed HTTP upstream: no call
// fails, every client keeps its session, the unchanged upstream keeps its
// process, and the removed upstream's process ends. Once the clients have
// gone, Caddy has no more goroutines than before they came; once Caddy
// exits, no upstream process is left.
func TestReloadUnderLoad(t *testing.T) {
	everythingURL, _ := testenv.StartEverythingServer(t)
	dir := t.TempDir()
	memFile, goneFile := filepath.Join(dir, "mem.jsonl"), filepath.Join(dir, "gone.jsonl")
	caddy := testenv.StartCaddy(t, reloadCaddyfile(true, everythingURL, memFile, goneFile))
	url := caddy.URL("/mcp")

	memPID := waitForProcess(t, "MEMORY_FILE_PATH="+memFile)
	gonePID := waitForProcess(t, "MEMORY_FILE_PATH="+goneFile)
	goroutinesBefore := caddyGoroutinesBesidesPools(t, caddy.AdminPort)

	const clients = 6
	var sessions []*mcp.ClientSession
	var ids []string
	var httpClients []*http.Client
	for range clients {
		httpClient := h2cClient()
		httpClients = append(httpClients, httpClient)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "load"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: httpClient}, testenv.SessionOptions())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		sessions, ids = append(sessions, cs), append(ids, cs.ID())
	}

	var calls, failures atomic.Int64
	var firstFailure atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tools := []string{"mem.read_graph", "ev.test_simple_text"}
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_tool", Arguments: map[string]any{"tool_name": tools[(i+n)%2]}})
				cancel()
				calls.Add(1)
				if err != nil || res.IsError {
					failures.Add(1)
					if err == nil {
						err = fmt.Errorf("%s", res.Content[0].(*mcp.TextContent).Text)
					}
					firstFailure.CompareAndSwap(nil, err.Error())
				}
			}
		}()
	}

	time.Sleep(time.Second)
	before := calls.Load()
	start := time.Now()
	caddy.Reload(t, reloadCaddyfile(false, everythingURL, memFile, goneFile))
	t.Logf("caddy reload took %s", time.Since(start).Round(time.Millisecond))
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()

	t.Logf("calls: %d (%d before the reload), failed: %d", calls.Load(), before, failures.Load())
	if failures.Load() > 0 {
		t.Errorf("%d of %d calls failed across the reload; first: %v", failures.Load(), calls.Load(), firstFailure.Load())
	}
	if calls.Load() <= before {
		t.Error("no calls after the reload")
	}
	for i, cs := range sessions {
		if cs.ID() != ids[i] {
			t.Errorf("client %d's session changed from %s to %s", i, ids[i], cs.ID())
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute_tool", Arguments: map[string]any{"tool_name": "ev.test_simple_text"}})
		if err != nil || res.IsError {
			t.Errorf("client %d after the reload: %v %+v", i, err, res)
		}
	}
	if pid := findProcessWithEnv("MEMORY_FILE_PATH=" + memFile); pid != memPID {
		t.Errorf("the unchanged stdio upstream's process changed from %d to %d", memPID, pid)
	}
	deadline := time.Now().Add(15 * time.Second)
	for syscall.Kill(gonePID, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the removed upstream's process %d still runs", gonePID)
		}
		time.Sleep(100 * time.Millisecond)
	}

	for i, cs := range sessions {
		cs.Close()
		httpClients[i].CloseIdleConnections()
	}
	// One upstream fewer than before: fewer goroutines, not more.
	if n := settledGoroutines(t, caddy.AdminPort, goroutinesBefore, 10*time.Second); n > goroutinesBefore {
		t.Errorf("Caddy has %d goroutines after the reload and the clients' exit, %d before", n, goroutinesBefore)
	} else {
		t.Logf("Caddy goroutines: %d before the clients and the reload, %d after", goroutinesBefore, n)
	}
	// SIGTERM to Caddy alone, not its process group: Caddy must end its
	// upstreams' processes itself.
	syscall.Kill(caddy.Cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-caddy.Exited():
	case <-time.After(15 * time.Second):
		t.Fatal("Caddy did not exit on SIGTERM")
	}
	deadline = time.Now().Add(10 * time.Second)
	for findProcessWithEnv("MEMORY_FILE_PATH="+memFile) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the stdio upstream's process outlived Caddy")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func waitForProcess(t *testing.T, envEntry string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if pid := findProcessWithEnv(envEntry); pid != 0 {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no process with %s", envEntry)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// h2cClient speaks HTTP/2 without TLS, as a client of a TLS edge would
// speak HTTP/2: a server that shuts down announces it with GOAWAY, and the
// client retries the requests the server did not take. (Over HTTP/1.1 a
// request written just as the old server closes its idle keep-alive
// connection is lost with an EOF: a race in the protocol, not the gateway.)
func h2cClient() *http.Client {
	var protocols http.Protocols
	protocols.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: &http.Transport{Protocols: &protocols}}
}
