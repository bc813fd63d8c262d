package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
	"github.com/tiktoken-go/tokenizer"
)

// TestExampleCaddyfile runs the README's first command (`make run`, i.e.
// scripts/run-example.sh on Caddyfile.example) as a new user would, with
// only the ports and the memory file moved: it must say where the gateway
// is once Caddy is up, and the first discover_tools() must list the demo's
// three npm servers (memory, files, everything; fetched by npx on a fresh
// machine). Then it uses the demo as a model would: a search for an
// everyday request finds the memory tools, the files upstream reads the
// demo folder and offers no tool that writes, the everything upstream
// relays progress, and a loopback request naming another host is refused.
// It also measures what the meta-tools cost in a model's context
// (o200k_base tokens).
func TestExampleCaddyfile(t *testing.T) {
	root := testenv.RepoRoot(t)
	testenv.Caddy(t) // warms the build cache make run builds bin/caddy from
	gatewayPort, adminPort := testenv.FreePort(t), testenv.FreePort(t)
	run := testenv.Start(t, root, []string{
		fmt.Sprint("GATEWAY_PORT=", gatewayPort),
		fmt.Sprint("CADDY_ADMIN_PORT=", adminPort),
		"MEMORY_FILE_PATH=" + filepath.Join(t.TempDir(), "memory.jsonl"),
	}, "make", "run")

	// The script says where to connect once Caddy listens, and how to try it.
	url := fmt.Sprintf("http://localhost:%d/mcp", gatewayPort)
	banner := "MCP gateway ready: " + url
	deadline := time.Now().Add(3 * time.Minute)
	for !strings.Contains(run.Output(), banner) {
		select {
		case <-run.Exited():
			t.Fatalf("make run exited before saying %q:\n%s", banner, run.Output())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("make run did not say %q within 3 minutes:\n%s", banner, run.Output())
		}
	}
	testenv.WaitPort(t, gatewayPort, run) // the banner comes after the port is up
	if hint := "npx @modelcontextprotocol/inspector --cli " + url; !strings.Contains(run.Output(), hint) {
		t.Errorf("make run's banner lacks the hint %q:\n%s", hint, run.Output())
	}

	client := testenv.StartTSClient(t)
	client.MustDo(map[string]any{"op": "connect", "url": url})

	// npx may still be fetching the servers on a fresh machine.
	var domains struct {
		Domains []struct {
			Name      string `json:"name"`
			Status    string `json:"status"`
			ToolCount int    `json:"tool_count"`
		} `json:"domains"`
	}
	var discoverText string
	deadline = time.Now().Add(4 * time.Minute)
	for {
		r := call(t, client, "discover_tools", map[string]any{})
		r.decode(t, &domains)
		discoverText = r.text()
		ready := len(domains.Domains) == 3
		for _, d := range domains.Domains {
			ready = ready && d.Status == "" && d.ToolCount > 0
		}
		if ready {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo's upstreams are not all ready after 4 minutes: %s", discoverText)
		}
		time.Sleep(time.Second)
	}
	var names []string
	for _, d := range domains.Domains {
		names = append(names, d.Name)
	}
	if want := []string{"memory", "files", "everything"}; !slices.Equal(names, want) {
		t.Errorf("discover_tools() lists domains %v, want %v", names, want)
	}

	// An everyday request finds a memory tool among the first three.
	var found struct {
		Results []struct {
			Name string `json:"name"`
		} `json:"results"`
	}
	query := "remember that Alice works at Acme"
	call(t, client, "discover_tools", map[string]any{"query": query}).decode(t, &found)
	var top []string
	for i, r := range found.Results {
		if i < 3 {
			top = append(top, r.Name)
		}
	}
	if !slices.ContainsFunc(top, func(name string) bool { return strings.HasPrefix(name, "memory.") }) {
		t.Errorf("search %q: no memory tool in the top 3 %v", query, top)
	}
	if !slices.Contains(top, "memory.create_entities") {
		t.Errorf("search %q: memory.create_entities not in the top 3 %v", query, top)
	}
	t.Logf("search %q: top 3 %v", query, top)

	// Everyday requests of a new user rank the tool that does it first,
	// whatever verb the tool is named with.
	for query, want := range map[string][]string{
		"remember a fact about a person": {"memory.add_observations", "memory.create_entities"},
		"generate an image":              {"everything.get-tiny-image"},
		"add two numbers":                {"everything.get-sum"},
		"read the orders csv":            {"files.read_file", "files.read_text_file"},
	} {
		var ranked struct {
			Results []struct {
				Name string `json:"name"`
			} `json:"results"`
		}
		call(t, client, "discover_tools", map[string]any{"query": query}).decode(t, &ranked)
		var names []string
		for _, r := range ranked.Results {
			names = append(names, r.Name)
		}
		if len(names) == 0 || !slices.Contains(want, names[0]) {
			t.Errorf("search %q ranks %v, want one of %v first", query, names[:min(3, len(names))], want)
		}
	}

	// The memory server keeps what it is told.
	if r := call(t, client, "execute_tool", map[string]any{"tool_name": "memory.create_entities", "arguments": map[string]any{
		"entities": []map[string]any{{"name": "Alice", "entityType": "person", "observations": []string{"works at Acme"}}},
	}}); r.IsError {
		t.Errorf("memory.create_entities: %s", r.text())
	}
	if r := call(t, client, "execute_tool", map[string]any{"tool_name": "memory.read_graph"}); r.IsError || !strings.Contains(r.text(), "works at Acme") {
		t.Errorf("memory.read_graph after create_entities: %+v", r)
	}

	// The files upstream reads the demo folder, and the catalog has none of
	// its tools that write.
	if r := call(t, client, "execute_tool", map[string]any{"tool_name": "files.read_text_file",
		"arguments": map[string]any{"path": filepath.Join(root, "examples", "demo", "notes", "2026-11-03-kickoff.md")}}); r.IsError || !strings.Contains(r.text(), "Kickoff: Acme onboarding") {
		t.Errorf("files.read_text_file on the demo notes: %+v", r)
	}
	var files struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	call(t, client, "discover_tools", map[string]any{"domain": "files"}).decode(t, &files)
	if len(files.Tools) == 0 {
		t.Errorf("discover_tools(domain: files) lists no tools")
	}
	for _, tool := range files.Tools {
		for _, writes := range []string{"write_file", "edit_file", "move_file", "create_directory"} {
			if strings.HasSuffix(tool.Name, "."+writes) {
				t.Errorf("the files domain offers %s, a tool that writes", tool.Name)
			}
		}
	}
	if r := call(t, client, "execute_tool", map[string]any{"tool_name": "files.write_file",
		"arguments": map[string]any{"path": "x.txt", "content": "x"}}); !r.IsError {
		t.Errorf("files.write_file was called: %+v", r)
	}

	// The everything upstream (a session of its own per client) relays
	// the progress of a long call, and keeps get-env out of the catalog.
	v := client.MustDo(map[string]any{"op": "callTool", "name": "execute_tool", "progress": true, "arguments": map[string]any{
		"tool_name": "everything.trigger-long-running-operation", "arguments": map[string]any{"duration": 1, "steps": 2},
	}})
	if progress, _ := v["progress"].([]any); len(progress) != 2 {
		t.Errorf("everything.trigger-long-running-operation relayed %d progress notifications, want 2: %v", len(progress), v)
	}
	if r := call(t, client, "execute_tool", map[string]any{"tool_name": "everything.get-env"}); !r.IsError {
		t.Errorf("everything.get-env, denied in Caddyfile.example, was called: %+v", r)
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
	// The README promises under 500.
	if listTokens > 500 {
		t.Errorf("tools/list costs %d tokens; it should stay under 500", listTokens)
	}
}
