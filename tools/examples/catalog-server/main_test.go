package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCatalogServer(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "catalog-server")
	if err := procs.Build(testenv.RepoRoot(t), "./examples/catalog-server", bin); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil)

	stdio, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "-stdio", "yahoo-finance")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stdio.Close()
	tools, err := stdio.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 10 {
		t.Fatalf("yahoo-finance over stdio lists %d tools (%v), want 10", len(tools.Tools), err)
	}
	if !strings.Contains(stdio.InitializeResult().Instructions, "Yahoo Finance") {
		t.Errorf("instructions = %q, want the server's description", stdio.InitializeResult().Instructions)
	}
	res, err := stdio.CallTool(ctx, &mcp.CallToolParams{Name: "get_current_stock_price", Arguments: map[string]any{"symbol": "AAPL"}})
	if err != nil || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `{"symbol":"AAPL"}`) {
		t.Errorf("canned call = %+v, %v", res, err)
	}

	port := testenv.FreePort(t)
	p := testenv.Start(t, "", nil, bin, "-http", fmt.Sprintf("127.0.0.1:%d", port))
	testenv.WaitPort(t, port, p)
	for domain, want := range map[string]int{"filesystem": 12, "Ant-Design-Components": 4} {
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: fmt.Sprintf("http://127.0.0.1:%d/%s/mcp", port, domain)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		tools, err := cs.ListTools(ctx, nil)
		if err != nil || len(tools.Tools) != want {
			t.Errorf("%s over HTTP lists %d tools (%v), want %d", domain, len(tools.Tools), err, want)
		}
		cs.Close()
	}

	// Another of the repository's catalogs, by name.
	byName, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "-catalog", "devtools", "-stdio", "github")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err = byName.ListTools(ctx, nil)
	byName.Close()
	if err != nil || len(tools.Tools) != 86 {
		t.Errorf("devtools' github over stdio lists %d tools (%v), want 86", len(tools.Tools), err)
	}
	listing, err := exec.Command(bin, "-catalogs").Output()
	if err != nil || !strings.Contains(string(listing), "livemcpbench: 70 servers, 527 tools") || !strings.Contains(string(listing), "devtools: 7 servers, 253 tools, task sets blind") {
		t.Errorf("-catalogs printed %q (%v)", listing, err)
	}
	if out, err := exec.Command(bin, "-catalog", "nope", "-list").CombinedOutput(); err == nil || !strings.Contains(string(out), "no catalog \"nope\"") {
		t.Errorf("-catalog nope: %q (%v), want an error naming the catalogs", out, err)
	}

	out, err := exec.Command(bin, "-caddyfile", "-http", "127.0.0.1:9200").Output()
	if err != nil || strings.Count(string(out), "upstream ") != 70 || !strings.Contains(string(out), "upstream filesystem http://127.0.0.1:9200/filesystem/mcp") {
		t.Errorf("-caddyfile printed:\n%s", out)
	}
}
