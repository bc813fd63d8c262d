package catalogs

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/livemcpbench"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// server is a server key and its tools' names.
type server struct {
	key   string
	tools []string
}

// writeCatalog writes a catalog directory with servers and one task set.
func writeCatalog(t *testing.T, dir string, servers []server, tasks string) *Catalog {
	t.Helper()
	var all []*livemcpbench.Server
	for _, sv := range servers {
		s := &livemcpbench.Server{Domain: sv.key, Name: sv.key, Description: sv.key + " server", Category: "test"}
		for _, n := range sv.tools {
			s.Tools = append(s.Tools, &mcp.Tool{Name: n, Description: n + " tool", InputSchema: map[string]any{"type": "object"}})
		}
		all = append(all, s)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteServers(filepath.Join(dir, ToolsFile), all); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tasks-blind.json"), []byte(tasks), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestMerge(t *testing.T) {
	root := t.TempDir()
	a := writeCatalog(t, filepath.Join(root, "a"), []server{{"github", []string{"search", "get_me"}}},
		`[{"task_id": "a-1", "query": "who am I", "tools": ["get_me"]}, {"task_id": "a-2", "query": "x", "tools": ["nosuch"]}]`)
	b := writeCatalog(t, filepath.Join(root, "b"), []server{{"github", []string{"search"}}, {"jira", []string{"search"}}},
		`[{"task_id": "b-1", "query": "find it", "tools": ["jira.search"]}, {"task_id": "b-2", "query": "find", "tools": ["search"]}]`)
	servers, sets, err := Merge([]*Catalog{a, b}, func(c *Catalog) []string { return c.TaskSets })
	if err != nil {
		t.Fatal(err)
	}
	var domains []string
	for _, s := range servers {
		domains = append(domains, s.Domain)
	}
	if want := []string{"github", "github-b", "jira"}; !reflect.DeepEqual(domains, want) {
		t.Errorf("domains = %v, want %v", domains, want)
	}
	gold := map[string][]string{}
	for _, s := range sets {
		for _, task := range s.Tasks {
			gold[task.ID] = task.Tools
		}
	}
	want := map[string][]string{
		"a-1": {"github.get_me"},
		"a-2": {"nosuch"},
		"b-1": {"jira.search"},
		"b-2": {"github-b.search", "jira.search"},
	}
	if !reflect.DeepEqual(gold, want) {
		t.Errorf("gold = %v, want %v", gold, want)
	}
	// The merged servers round-trip through tools.json.
	path := filepath.Join(root, "merged.json")
	if err := WriteServers(path, servers); err != nil {
		t.Fatal(err)
	}
	back, err := livemcpbench.Servers(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 3 || back[1].Domain != "github-b" || back[1].Tools[0].Name != "search" {
		t.Errorf("read back %d servers, the second %+v", len(back), back[1])
	}
}

// WriteEntries writes a catalog's tools.json as extract wrote it: read
// and written again, every built catalog's file is the same bytes.
func TestWriteEntriesReproducesToolsJSON(t *testing.T) {
	for _, name := range []string{"support", "ai", "documents"} {
		path := filepath.Join(toolsDir(t), "internal", "catalogs", name, ToolsFile)
		entries, err := ReadEntries(path)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), ToolsFile)
		if err := WriteEntries(out, entries); err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(path)
		got, _ := os.ReadFile(out)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: tools.json written again differs (%d bytes, was %d)", name, len(got), len(want))
		}
	}
}
