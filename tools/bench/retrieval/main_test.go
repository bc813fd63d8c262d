package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
// sealed ones only with -sealed.
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
		{options{}, "livemcpbench:dev,short, kept:(sealed: measured only with -sealed) plain:"},
		{options{sealed: true}, "livemcpbench:dev,short, kept:short, plain:"},
		{options{tasks: "short"}, "livemcpbench:short, kept:(sealed: measured only with -sealed)"},
		{options{tasks: "short", sealed: true}, "livemcpbench:short, kept:short,"},
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
