package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
)

// TestMCPGatewayCommand runs `caddy mcp-gateway` on a config with an HTTP
// and a stdio upstream: it lists the domains, searches as the model would,
// and scores search quality on a file of labelled queries.
func TestMCPGatewayCommand(t *testing.T) {
	everythingURL, _ := testenv.StartEverythingServer(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "Caddyfile")
	caddyfile := strings.NewReplacer("{NODE_DIR}", testenv.NodeDir(t), "{ADMIN_PORT}", "0", "{HTTP_PORT}", "0").
		Replace(operationsCaddyfile(everythingURL, filepath.Join(dir, "mem.jsonl")))
	if err := os.WriteFile(config, []byte(caddyfile), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := testenv.RunCaddy(t, dir, append([]string{"mcp-gateway"}, append(args, "--config", config)...)...)
		if err != nil {
			t.Fatalf("caddy mcp-gateway %v: %v\n%s", args, err, out)
		}
		return out
	}

	domains := run("domains")
	if !regexp.MustCompile(`(?m)^ev\s+ready\s+\d+`).MatchString(domains) || !regexp.MustCompile(`(?m)^mem\s+ready\s+9\s+`).MatchString(domains) {
		t.Errorf("domains:\n%s", domains)
	}

	found := run("search", "read", "the", "knowledge", "graph")
	if !regexp.MustCompile(`(?m)^1\s+mem\.read_graph\s`).MatchString(found) {
		t.Errorf("search:\n%s", found)
	}

	queries := filepath.Join(dir, "queries.json")
	if err := os.WriteFile(queries, []byte(`[
		{"query": "read the whole knowledge graph", "tools": ["mem.read_graph"]},
		{"query": "add observations to entities", "tools": ["add_observations"]},
		{"query": "zzyzx qwertyuiop", "tools": ["mem.delete_entities"]}
	]`), 0o644); err != nil {
		t.Fatal(err)
	}
	score := run("score", queries, "--verbose")
	row := regexp.MustCompile(`gateway search\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)`).FindStringSubmatch(score)
	if row == nil {
		t.Fatalf("score:\n%s", score)
	}
	hit5, _ := strconv.ParseFloat(row[8], 64)
	if row[1] != "3" || hit5 < 0.66 || hit5 > 0.67 {
		t.Errorf("score: %s tasks, Hit@5 %v; want 3 and 2/3:\n%s", row[1], hit5, score)
	}
	if !strings.Contains(score, "R@5") || !strings.Contains(score, "MRR@10") || !strings.Contains(score, `"zzyzx qwertyuiop" wants mem.delete_entities`) {
		t.Errorf("score output:\n%s", score)
	}
	if !strings.Contains(score, "searching") {
		t.Errorf("no progress bar on stderr:\n%s", score)
	}

	empty := filepath.Join(dir, "empty.Caddyfile")
	os.WriteFile(empty, []byte(":0 {\n\trespond ok\n}\n"), 0o644)
	if out, err := testenv.RunCaddy(t, dir, "mcp-gateway", "domains", "--config", empty); err == nil || !strings.Contains(out, "the config has no mcp_gateway handler") {
		t.Errorf("a config without a gateway: %v\n%s", err, out)
	}
}
