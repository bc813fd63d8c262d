package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// explainedAnswer is the part of an explained search the tests read.
type explainedAnswer struct {
	Results []struct {
		Name        string  `json:"name"`
		Score       float64 `json:"score"`
		Explanation *struct {
			BM25F float64 `json:"bm25f"`
			Score float64 `json:"score"`
			Words []struct {
				Word  string `json:"word"`
				Terms []struct {
					Term   string   `json:"term"`
					Match  string   `json:"match"`
					Fields []string `json:"fields"`
				} `json:"terms"`
			} `json:"words"`
			Signals []struct {
				Signal string  `json:"signal"`
				Score  float64 `json:"score"`
				Reason string  `json:"reason"`
			} `json:"signals"`
		} `json:"explanation"`
	} `json:"results"`
	Reading *struct {
		Words []struct {
			Word   string  `json:"word"`
			Weight float64 `json:"weight"`
		} `json:"words"`
	} `json:"reading"`
}

// TestSearchExplainedOnTheAdminAPI asks Caddy's admin API why the
// gateway's search ranks the tools of server-memory as it does.
func TestSearchExplainedOnTheAdminAPI(t *testing.T) {
	everythingURL, _ := testenv.StartEverythingServer(t)
	caddy := testenv.StartCaddy(t, operationsCaddyfile(everythingURL, filepath.Join(t.TempDir(), "mem.jsonl")))
	awaitUpstreams(t, caddy.AdminPort)
	query := url.QueryEscape("read the knowledge graph")

	var a explainedAnswer
	adminJSON(t, caddy.AdminPort, "/mcp_gateway/search?explain=1&q="+query, &a)
	if len(a.Results) == 0 || a.Results[0].Name != "mem.read_graph" {
		t.Fatalf("explained search = %+v", a)
	}
	e := a.Results[0].Explanation
	if e == nil || e.Score != a.Results[0].Score || e.BM25F <= 0 || len(e.Words) == 0 {
		t.Fatalf("explanation of mem.read_graph: %+v", e)
	}
	inName := false
	for _, w := range e.Words {
		for _, term := range w.Terms {
			inName = inName || (term.Term == "graph" && strings.Contains(strings.Join(term.Fields, ","), "name"))
		}
	}
	if !inName {
		t.Errorf("the explanation does not say graph is in read_graph's name: %+v", e.Words)
	}
	if a.Reading == nil || len(a.Reading.Words) == 0 {
		t.Errorf("no reading of the query: %+v", a.Reading)
	}

	// Unexplained, the answer is the model's; a bad explain is an error.
	body, err := procs.AdminGet(caddy.AdminPort, "/mcp_gateway/search?q="+query)
	if err != nil || strings.Contains(body, "explanation") || !strings.Contains(body, "mem.read_graph") {
		t.Errorf("unexplained search: %v\n%s", err, body)
	}
	if _, err := procs.AdminGet(caddy.AdminPort, "/mcp_gateway/search?explain=maybe&q="+query); err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "explain=1") {
		t.Errorf("explain=maybe: %v", err)
	}
}

// TestSearchExplainedByTheCommand runs `caddy mcp-gateway search
// --explain`.
func TestSearchExplainedByTheCommand(t *testing.T) {
	everythingURL, _ := testenv.StartEverythingServer(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "Caddyfile")
	caddyfile := strings.NewReplacer("{NODE_DIR}", testenv.NodeDir(t), "{ADMIN_PORT}", "0", "{HTTP_PORT}", "0").
		Replace(operationsCaddyfile(everythingURL, filepath.Join(dir, "mem.jsonl")))
	if err := os.WriteFile(config, []byte(caddyfile), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := testenv.RunCaddy(t, dir, "mcp-gateway", "search", "--explain", "read", "the", "knowledge", "graph", "--config", config)
	if err != nil {
		t.Fatalf("caddy mcp-gateway search --explain: %v\n%s", err, out)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^Read as: read ×1\.00 knowledg ×1\.00 graph ×1\.00`),
		regexp.MustCompile(`(?m)^1\s+mem\.read_graph\s`),
		regexp.MustCompile(`(?m)^   score \d+\.\d{3}$`),
		regexp.MustCompile(`(?m)^   BM25F \d+\.\d{3}$`),
		regexp.MustCompile(`(?m)^     graph \+\d+\.\d{3}: graph ×1\.00 in name`),
		regexp.MustCompile(`(?m)^   name coverage \+\d+\.\d{3} = \d+\.\d{3}: the request spells out`),
	} {
		if !want.MatchString(out) {
			t.Errorf("the output lacks %s:\n%s", want, out)
		}
	}
	plain, err := testenv.RunCaddy(t, dir, "mcp-gateway", "search", "read", "the", "knowledge", "graph", "--config", config)
	if err != nil || strings.Contains(plain, "BM25F") || !regexp.MustCompile(`(?m)^1\s+mem\.read_graph\s`).MatchString(plain) {
		t.Errorf("search without --explain: %v\n%s", err, plain)
	}
}

// TestSearchExplainedOnTheOperatorPage loads the operator page's search
// with its explain box ticked in headless Chromium.
func TestSearchExplainedOnTheOperatorPage(t *testing.T) {
	everythingURL, _ := testenv.StartEverythingServer(t)
	caddy := testenv.StartCaddy(t, operationsCaddyfile(everythingURL, filepath.Join(t.TempDir(), "mem.jsonl")))
	awaitUpstreams(t, caddy.AdminPort)
	page := fmt.Sprintf("http://ops:ops-password@127.0.0.1:%d/ops/", caddy.HTTPPort)
	dom := testenv.Headless(t, page+"?explain=1&q="+url.QueryEscape("read the knowledge graph"), "--dump-dom")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`<input type="checkbox" name="explain" value="1" checked="">`),
		regexp.MustCompile(`<div id="reading"><p>Read as: <code>read</code> ×1\.00`),
		regexp.MustCompile(`<td>1</td><td><code>mem\.read_graph</code></td>`),
		regexp.MustCompile(`<tr class="why"><td></td><td colspan="3">\s*<p>Score \d+\.\d{3}: BM25F \d+\.\d{3} of the words below`),
		regexp.MustCompile(`<td><code>graph</code></td><td>the request's words</td><td>\+\d+\.\d{3}</td><td><code>graph</code> the word, ×1\.00, in name`),
		regexp.MustCompile(`<li>name coverage \+\d+\.\d{3} = \d+\.\d{3}: the request spells out`),
	} {
		if !want.MatchString(dom) {
			t.Errorf("the rendered page lacks %s", want)
		}
	}
	if t.Failed() {
		t.Logf("DOM:\n%s", dom)
	}
	plain := testenv.Headless(t, page+"?q="+url.QueryEscape("read the knowledge graph"), "--dump-dom")
	if strings.Contains(plain, `class="why"`) || !strings.Contains(plain, "<code>mem.read_graph</code>") {
		t.Errorf("the page explains a search that did not ask:\n%s", plain)
	}
}

// TestOperatorSynonyms checks the search block end to end: a request in
// the operator's words ("purge the contact Bob") finds server-memory's
// delete_entities first only with the operator's synonyms, one group
// inline and one from a file.
func TestOperatorSynonyms(t *testing.T) {
	dir := t.TempDir()
	synonyms := filepath.Join(dir, "synonyms.txt")
	if err := os.WriteFile(synonyms, []byte("# Our CRM's words for the knowledge graph's\ncontact entity person\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	config := func(search string) string {
		return fmt.Sprintf(`{
	admin 127.0.0.1:{ADMIN_PORT}
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	mcp_gateway /mcp {
		%s
		upstream mem {
			command node {NODE_DIR}/node_modules/@modelcontextprotocol/server-memory/dist/index.js
			env MEMORY_FILE_PATH %s
		}
	}
}
`, search, filepath.Join(dir, "mem.jsonl"))
	}
	first := func(caddyfile string) string {
		caddy := testenv.StartCaddy(t, caddyfile)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "synonyms"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: caddy.URL("/mcp")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "discover_tools", Arguments: map[string]any{"query": "purge the contact Bob"}})
		if err != nil || res.IsError {
			t.Fatalf("discover_tools: %v %+v", err, res)
		}
		var answer struct {
			Results []struct {
				Name string `json:"name"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &answer); err != nil {
			t.Fatal(err)
		}
		if len(answer.Results) == 0 {
			return ""
		}
		return answer.Results[0].Name
	}
	with := first(config(fmt.Sprintf("search {\n\t\t\tsynonyms \"purge delete\"\n\t\t\tsynonyms %s\n\t\t}", synonyms)))
	without := first(config(""))
	if with != "mem.delete_entities" || without == "mem.delete_entities" {
		t.Errorf("purge the contact Bob: first %q with the operator's synonyms, %q without; want mem.delete_entities with them only", with, without)
	}

	// A config whose synonyms file is missing does not load.
	bad := filepath.Join(dir, "bad.Caddyfile")
	os.WriteFile(bad, []byte(strings.NewReplacer("{ADMIN_PORT}", "0", "{HTTP_PORT}", "0", "{NODE_DIR}", testenv.NodeDir(t)).
		Replace(config("search {\n\t\t\tsynonyms /nonexistent/synonyms.txt\n\t\t}"))), 0o644)
	if out, err := testenv.RunCaddy(t, dir, "validate", "--config", bad, "--adapter", "caddyfile"); err == nil || !strings.Contains(out, "search: synonyms file: open /nonexistent/synonyms.txt") {
		t.Errorf("caddy validate with a missing synonyms file: %v\n%s", err, out)
	}
}

// awaitUpstreams waits until the ops gateway's upstreams are ready: an
// operator's search reads the catalog as it is.
func awaitUpstreams(t *testing.T, adminPort int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, ups := gatewayStatus(t, adminPort)
		// An upstream is ready once its lists are read; the catalog the
		// search ranks is rebuilt from them just after, on its own.
		if ups["ev"].State == "ready" && ups["mem"].State == "ready" && catalogHolds(t, adminPort, "ev", "mem") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("upstreams not ready, or not in the catalog: %+v", ups)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// catalogHolds says whether the gateway's catalog holds tools of each of
// the domains.
func catalogHolds(t *testing.T, adminPort int, domains ...string) bool {
	t.Helper()
	var catalog []struct {
		Name  string            `json:"name"`
		Tools []json.RawMessage `json:"tools"`
	}
	adminJSON(t, adminPort, "/mcp_gateway/catalog", &catalog)
	tools := map[string]int{}
	for _, d := range catalog {
		tools[d.Name] = len(d.Tools)
	}
	for _, d := range domains {
		if tools[d] == 0 {
			return false
		}
	}
	return true
}
