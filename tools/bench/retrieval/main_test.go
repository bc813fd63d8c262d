package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
)

// TestRetrievalBenchmarkRuns runs the benchmark end to end on the short
// task set: real catalog server, real Caddy, MCP over loopback.
func TestRetrievalBenchmarkRuns(t *testing.T) {
	if err := run(options{tasks: "short", verbose: true}); err != nil {
		t.Fatal(err)
	}
}

// TestPlanRuns checks which catalogs and task sets a run measures: every
// task set of every catalog by default, catalogs without task sets listed,
// sealed ones only with -sealed, and marked so that their misses are
// never listed.
func TestPlanRuns(t *testing.T) {
	dir := t.TempDir()
	for path, text := range map[string]string{
		"internal/livemcpbench/data/tools.json":       "[]",
		"internal/livemcpbench/data/tasks-dev.json":   "[]",
		"internal/livemcpbench/data/tasks-short.json": "[]",
		"internal/catalogs/plain/tools.json":          "[]",
		"internal/catalogs/kept/tools.json":           "[]",
		"internal/catalogs/kept/SEALED":               "",
		"internal/catalogs/kept/tasks-short.json":     "[]",
	} {
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	describe := func(plan []catalogRun) string {
		var parts []string
		for _, r := range plan {
			s := r.name + ":"
			if r.sealed {
				// measureCatalog never lists a sealed catalog's misses.
				s = r.name + "[sealed]:"
			}
			for _, set := range r.sets {
				s += set.name + ","
			}
			if r.note != "" {
				s += "(" + r.note + ")"
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, " ")
	}
	for _, tc := range []struct {
		o    options
		want string
	}{
		{options{}, "livemcpbench:dev,short, kept[sealed]:(sealed: measured only with -sealed) plain:"},
		{options{sealed: true}, "livemcpbench:dev,short, kept[sealed]:short, plain:"},
		{options{tasks: "short"}, "livemcpbench:short, kept[sealed]:(sealed: measured only with -sealed)"},
		{options{tasks: "short", sealed: true, verbose: true}, "livemcpbench:short, kept[sealed]:short,"},
		{options{catalogs: "plain"}, "plain:"},
		{options{tasks: "mine.json"}, "livemcpbench:mine.json,"},
	} {
		plan, err := planRuns(dir, tc.o)
		if err != nil {
			t.Errorf("%+v: %v", tc.o, err)
			continue
		}
		if got := describe(plan); got != tc.want {
			t.Errorf("%+v: planned %q, want %q", tc.o, got, tc.want)
		}
	}
	if _, err := planRuns(dir, options{catalogs: "kept"}); err == nil || !strings.Contains(err.Error(), "-sealed") {
		t.Errorf("naming a sealed catalog without -sealed: %v, want an error that says -sealed", err)
	}
	if _, err := planRuns(dir, options{tasks: "nope"}); err == nil {
		t.Error("a task set no catalog has: no error")
	}
}

// TestExplain explains a request on one catalog through its gateway: the
// reading of the request, then each tool with its score and what made it;
// and refuses a request to explain on several catalogs.
func TestExplain(t *testing.T) {
	root, err := procs.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if err := run(options{explain: "list pull requests", catalogs: "livemcpbench,devtools"}); err == nil || !strings.Contains(err.Error(), "one catalog") {
		t.Errorf("-explain over two catalogs: %v, want an error asking for one", err)
	}
	plan, err := planRuns(procs.ToolsDir(root), options{catalogs: "devtools"})
	if err != nil {
		t.Fatal(err)
	}
	bins, err := buildBinaries(root)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(bins.dir)
	var out strings.Builder
	if err := explain(bins, plan[0], "list the pull requests of acme/web", &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{`== devtools: "list the pull requests of acme/web"`, "Read as: ", "\n1  github.list_pull_requests ", "BM25F ", "name coverage +"} {
		if !strings.Contains(text, want) {
			t.Errorf("explanation lacks %q:\n%s", want, procs.Tail(text, 3000))
		}
	}
}

// TestAllReady checks the benchmark's wait for a gateway's upstreams: a
// domain with a status is not ready, and a group named "status" is no
// status.
func TestAllReady(t *testing.T) {
	for _, tc := range []struct {
		text    string
		domains int
		want    bool
	}{
		{`{"domains":[{"name":"pdf","tool_count":3,"groups":["status","template"]}],"total_tools":3}`, 1, true},
		{`{"domains":[{"name":"pdf","tool_count":3},{"name":"b","status":"starting","tool_count":0}]}`, 2, false},
		{`{"domains":[{"name":"pdf","tool_count":3}]}`, 2, false},
		{`not json`, 1, false},
	} {
		if got := allReady(tc.text, tc.domains); got != tc.want {
			t.Errorf("allReady(%s, %d) = %v, want %v", tc.text, tc.domains, got, tc.want)
		}
	}
}

// TestMergedRuns runs the benchmark end to end on the merged catalog of
// two catalogs' blind sets: each is measured among the other catalog's
// tools too.
func TestMergedRuns(t *testing.T) {
	root, err := procs.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	o := options{catalogs: "livemcpbench,devtools", tasks: "blind", merged: true}
	plan, err := planRuns(procs.ToolsDir(root), o)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := mergeCatalogs(procs.ToolsDir(root), plan, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range merged.sets {
		names = append(names, s.name)
	}
	if strings.Join(names, " ") != "livemcpbench/blind devtools/blind" {
		t.Errorf("merged sets = %v, want livemcpbench/blind and devtools/blind", names)
	}
	if err := run(o); err != nil {
		t.Fatal(err)
	}
}
