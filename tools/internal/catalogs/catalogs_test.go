package catalogs

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/livemcpbench"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func toolsDir(t *testing.T) string {
	t.Helper()
	root, err := procs.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return procs.ToolsDir(root)
}

// TestCatalogs loads every catalog of the repository and checks what the
// gateway and the benchmark rely on: the sizes recorded here, one domain
// per server key, names unique within a server, every tool named with an
// object input schema.
func TestCatalogs(t *testing.T) {
	want := map[string]struct{ servers, tools int }{
		LiveMCPBench: {70, 527},
		"devtools":   {7, 253},
		"business":   {9, 232},
		"cloud":      {9, 216},
		"commerce":   {9, 224},
		"workplace":  {7, 228},
		"secops":     {10, 183},
		"content":    {8, 229},
		"data":       {10, 178},
		"leisure":    {10, 189},
		"finance":    {7, 232},
		"social":     {8, 205},
		"learning":   {8, 125},
		"media":      {8, 191},
		"chain":      {8, 195},
		"marketing":  {7, 239},
		"documents":  {10, 182},
		"support":    {7, 181},
		"ai":         {10, 146},
		"web":        {10, 167},
		"research":   {7, 178},
		"backoffice": {6, 220},
		"assorted":   {21, 248},
	}
	all, err := All(toolsDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := Names(all); !reflect.DeepEqual(got, []string{LiveMCPBench, "ai", "assorted", "backoffice", "business", "chain", "cloud", "commerce", "content", "data", "devtools", "documents", "finance", "learning", "leisure", "marketing", "media", "research", "secops", "social", "support", "web", "workplace"}) {
		t.Errorf("catalogs = %v", got)
	}
	for _, c := range all {
		t.Run(c.Name, func(t *testing.T) {
			servers, err := c.Servers()
			if err != nil {
				t.Fatal(err)
			}
			tools := 0
			for _, s := range servers {
				tools += len(s.Tools)
				names := map[string]bool{}
				for _, tool := range s.Tools {
					if tool.Name == "" {
						t.Errorf("%s: a tool has no name", s.Domain)
					}
					if names[tool.Name] {
						t.Errorf("%s: two tools named %s", s.Domain, tool.Name)
					}
					names[tool.Name] = true
					schema, ok := tool.InputSchema.(map[string]any)
					if !ok || schema["type"] != "object" {
						t.Errorf("%s.%s: input schema %v is not an object schema", s.Domain, tool.Name, tool.InputSchema)
					}
				}
			}
			w, ok := want[c.Name]
			if !ok {
				t.Fatalf("no sizes recorded for catalog %s (%d servers, %d tools): add them here", c.Name, len(servers), tools)
			}
			if len(servers) != w.servers || tools != w.tools {
				t.Errorf("%d servers, %d tools; want %d, %d", len(servers), tools, w.servers, w.tools)
			}
		})
	}
}

// TestBuiltCatalogs checks the catalogs built here against their
// sources.json, licences and writers' kit.
func TestBuiltCatalogs(t *testing.T) {
	for _, name := range []string{"devtools", "business", "cloud", "commerce", "workplace", "secops", "content", "data", "leisure", "finance", "social", "learning", "media", "chain", "marketing", "documents", "support", "ai", "web", "research", "backoffice", "assorted"} {
		t.Run(name, func(t *testing.T) {
			c, err := Open(filepath.Join(toolsDir(t), "internal", "catalogs", name))
			if err != nil {
				t.Fatal(err)
			}
			src, err := ReadSources(filepath.Join(c.Dir, SourcesFile))
			if err != nil {
				t.Fatal(err)
			}
			entries, err := ReadEntries(c.ToolsPath())
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != len(src.Servers) {
				t.Fatalf("tools.json has %d servers, sources.json %d", len(entries), len(src.Servers))
			}
			readme, err := os.ReadFile(filepath.Join(c.Dir, "README.md"))
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range src.Servers {
				if _, ok := entries[i].Tools[s.Key]; !ok || len(entries[i].Tools) != 1 {
					t.Errorf("server %d of tools.json is not %s", i, s.Key)
				}
				if livemcpbench.DomainName(s.Key) != s.Key {
					t.Errorf("server key %q is not a domain name", s.Key)
				}
				if (s.Repository == "" && s.Package == "") || s.Licence == "" || s.Description == "" || s.DescriptionFrom == "" {
					t.Errorf("%s: repository or package, licence and description (with where it is from) must be recorded", s.Key)
				}
				if s.Commit == "" && (s.Package == "" || s.Integrity == "") {
					t.Errorf("%s: neither a commit nor a package with its integrity identifies the definitions", s.Key)
				}
				if s.Repository == "" && !strings.Contains(s.Note, "repository") {
					t.Errorf("%s: no repository, and the note does not say why", s.Key)
				}
				if _, err := os.Stat(filepath.Join(c.Dir, "LICENSES", s.Key+".txt")); err != nil && !strings.Contains(s.Note, "licence") {
					t.Errorf("%s: no LICENSES/%s.txt, and the note does not say why", s.Key, s.Key)
				}
				if named := cmp.Or(s.Repository, s.Package); !strings.Contains(string(readme), named) {
					t.Errorf("README.md does not name %s's source %s", s.Key, named)
				}
			}
			servers, err := c.Servers()
			if err != nil {
				t.Fatal(err)
			}
			var kit []SampleEntry
			files, _ := filepath.Glob(filepath.Join(c.Dir, "kit", "sample-*.json"))
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				var es []SampleEntry
				if err := json.Unmarshal(b, &es); err != nil {
					t.Fatal(err)
				}
				kit = append(kit, es...)
			}
			if want := Sample(servers, c.Name, c.Name, 120); !reflect.DeepEqual(kit, want) {
				t.Errorf("kit/sample-*.json (%d entries) is not the sample of the catalog as it is: run writerkit sample", len(kit))
			}
			for _, e := range kit {
				if err := ResolveTaskName(servers, e.Name); err != nil {
					t.Errorf("%s: %v", e.TaskID, err)
				}
			}
		})
	}
}

func TestTaskNames(t *testing.T) {
	servers := []*livemcpbench.Server{
		{Domain: "github", Tools: tools("projects_list", "get_me")},
		{Domain: "kubernetes", Tools: tools("projects_list", "pods_list")},
	}
	if got := TaskName(servers, "github", "projects_list"); got != "github.projects_list" {
		t.Errorf("a shared name is %q, want it qualified", got)
	}
	if got := TaskName(servers, "github", "get_me"); got != "get_me" {
		t.Errorf("a name of one server is %q, want it bare", got)
	}
	for name, ok := range map[string]bool{"get_me": true, "kubernetes.projects_list": true, "github.get_me": true, "projects_list": false, "nope": false, "github.pods_list": false} {
		if err := ResolveTaskName(servers, name); (err == nil) != ok {
			t.Errorf("ResolveTaskName(%q) = %v", name, err)
		}
	}
}

func tools(names ...string) []*mcp.Tool {
	var out []*mcp.Tool
	for _, n := range names {
		out = append(out, &mcp.Tool{Name: n})
	}
	return out
}

// TestSelect checks that a sealed catalog is measured only on request.
func TestSelect(t *testing.T) {
	dir := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "internal", "livemcpbench", "data", ToolsFile), "[]")
	write(filepath.Join(dir, "internal", "livemcpbench", "data", "tasks-short.json"), "[]")
	write(filepath.Join(dir, "internal", "catalogs", "open", ToolsFile), "[]")
	write(filepath.Join(dir, "internal", "catalogs", "kept", ToolsFile), "[]")
	write(filepath.Join(dir, "internal", "catalogs", "kept", SealedFile), "")
	write(filepath.Join(dir, "internal", "catalogs", "kept", "tasks-a.json"), "[]")
	write(filepath.Join(dir, "internal", "catalogs", "extract", "main.go"), "package main")
	all, err := All(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := Names(all); !reflect.DeepEqual(got, []string{LiveMCPBench, "kept", "open"}) {
		t.Fatalf("catalogs = %v", got)
	}
	if c := Find(all, "kept"); !c.Sealed || !reflect.DeepEqual(c.TaskSets, []string{"a"}) {
		t.Errorf("kept = %+v, want sealed with task set a", c)
	}
	if c := Find(all, LiveMCPBench); c.Sealed || !reflect.DeepEqual(c.TaskSets, []string{"short"}) {
		t.Errorf("livemcpbench = %+v", c)
	}
	for _, tc := range []struct {
		names  string
		sealed bool
		want   []string
		err    bool
	}{
		{"", false, []string{LiveMCPBench, "open"}, false},
		{"", true, []string{LiveMCPBench, "kept", "open"}, false},
		{"open", false, []string{"open"}, false},
		{"kept", false, nil, true},
		{"kept,open", true, []string{"kept", "open"}, false},
		{"nope", true, nil, true},
	} {
		got, err := Select(all, tc.names, tc.sealed)
		if (err != nil) != tc.err || (err == nil && !reflect.DeepEqual(Names(got), tc.want)) {
			t.Errorf("Select(%q, sealed %v) = %v, %v; want %v (error %v)", tc.names, tc.sealed, Names(got), err, tc.want, tc.err)
		}
	}
}
