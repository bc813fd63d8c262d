package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
	"github.com/tiktoken-go/tokenizer"
)

// TestExampleCaddyfile runs the README's first command (`make run`, i.e.
// scripts/run-example.sh on Caddyfile.example) as a new user would, with
// only the ports moved, and uses the gateway with the TypeScript client:
// both upstreams answer (the stdio one fetched by npx). It also measures
// what the meta-tools cost in a model's context (o200k_base tokens).
func TestExampleCaddyfile(t *testing.T) {
	root := testenv.RepoRoot(t)
	gatewayPort, everythingPort, adminPort := testenv.FreePort(t), testenv.FreePort(t), testenv.FreePort(t)
	run := testenv.Start(t, root, []string{
		fmt.Sprint("GATEWAY_PORT=", gatewayPort),
		fmt.Sprint("EVERYTHING_PORT=", everythingPort),
		fmt.Sprint("CADDY_ADMIN_PORT=", adminPort),
		"MEMORY_FILE_PATH=" + filepath.Join(t.TempDir(), "memory.jsonl"),
	}, "make", "run")
	testenv.WaitPort(t, gatewayPort, run)

	client := testenv.StartTSClient(t)
	client.MustDo(map[string]any{"op": "connect", "url": fmt.Sprintf("http://localhost:%d/mcp", gatewayPort)})

	// npx may still be fetching server-memory on a fresh machine.
	var domains struct {
		Domains []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
		} `json:"domains"`
	}
	var discoverText string
	deadline := time.Now().Add(3 * time.Minute)
	for {
		r := call(t, client, "discover_tools", map[string]any{})
		r.decode(t, &domains)
		discoverText = r.text()
		if len(domains.Domains) == 2 && domains.Domains[0].Status == "" && domains.Domains[1].Status == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("upstreams not ready after 3 minutes: %s", discoverText)
		}
		time.Sleep(time.Second)
	}
	if domains.Domains[0].Name != "memory" || domains.Domains[1].Name != "everything" {
		t.Errorf("domains = %+v", domains.Domains)
	}
	if r := call(t, client, "execute_tool", map[string]any{"tool_name": "memory.read_graph"}); r.IsError {
		t.Errorf("memory.read_graph: %s", r.text())
	}
	if r := call(t, client, "execute_tool", map[string]any{"tool_name": "everything.test_simple_text"}); r.IsError || !strings.Contains(r.text(), "simple text") {
		t.Errorf("everything.test_simple_text: %+v", r)
	}

	// DNS-rebinding protection: a loopback request naming another host.
	req, _ := http.NewRequest("POST", fmt.Sprintf("http://127.0.0.1:%d/mcp", gatewayPort), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Host = "evil.example.com"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a request with Host evil.example.com got %d, want 403", resp.StatusCode)
	}

	listed := client.MustDo(map[string]any{"op": "listTools"})["result"]
	listJSON, _ := json.Marshal(listed)
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	listTokens, _ := enc.Count(string(listJSON))
	discoverTokens, _ := enc.Count(discoverText)
	t.Logf("context cost (o200k_base): meta-mode tools/list result %d tokens; discover_tools() on Caddyfile.example %d tokens", listTokens, discoverTokens)
	// The contract's schemas and descriptions come to about 365 tokens;
	// the annotations, the query syntax line and the envelope add ~100.
	if listTokens > 500 {
		t.Errorf("tools/list costs %d tokens; it should stay under 500", listTokens)
	}
}
