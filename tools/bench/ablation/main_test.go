package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/catalogs"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
)

// TestReadParts reads search/ablation.go's parts, as the command does.
func TestReadParts(t *testing.T) {
	root, err := procs.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	parts, err := readParts(filepath.Join(root, "search", "ablation.go"))
	if err != nil {
		t.Fatal(err)
	}
	names := make(map[string]part)
	for _, p := range parts {
		names[p.name] = p
	}
	for _, want := range []string{"name-coverage", "meaning", "thesaurus", "locators", "framing-verb"} {
		if p, ok := names[want]; !ok || p.kind == "" || p.what == "" {
			t.Errorf("part %q: %+v (found %d parts)", want, p, len(parts))
		}
	}
}

// TestCompare checks the paired comparison and its standard error.
func TestCompare(t *testing.T) {
	with := []ranked{{Rank: 1}, {Rank: 1}, {Rank: 2}, {Rank: 0}}
	without := []ranked{{Rank: 1}, {Rank: 4}, {Rank: 1}, {Rank: 5}}
	c := compare(with, without, []int{0, 1, 2, 3}, 1)
	if c.n != 4 || c.with != 0.5 || c.wo != 0.5 || c.more != 1 || c.less != 1 {
		t.Errorf("compare at Hit@1 = %+v", c)
	}
	if got := c.pays(); !strings.HasPrefix(got, "+0.000 ±0.354 (+1 −1)") {
		t.Errorf("pays = %q", got)
	}
	if c3 := compare(with, without, []int{0, 1, 2, 3}, 3); c3.more != 1 || c3.less != 0 {
		t.Errorf("compare at Hit@3 = %+v", c3)
	}
}

// TestUnreadBatches checks the batches read as never read.
func TestUnreadBatches(t *testing.T) {
	for id, want := range map[string]bool{"calib-17-3": true, "calib-19-1": false, "calib-43-120": true, "calib-78-1": true, "calib-34-28": false, "calib-1-1": false, "blind-3": false} {
		if got := unreadCalibBatches[calibBatch(id)]; got != want {
			t.Errorf("%s unread: %v, want %v", id, got, want)
		}
	}
	if n := len(unreadCalibBatches); n != 38 {
		t.Errorf("%d unread batches, want 38", n)
	}
}

// TestEveryTaskSetReported checks that the tables report every task set
// of every catalog measured (the unsealed ones; of LiveMCPBench's, the
// table of what each part pays keeps calib and blind), so that a new
// catalog is not measured and then left out.
func TestEveryTaskSetReported(t *testing.T) {
	root, err := procs.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	all, err := catalogs.All(procs.ToolsDir(root))
	if err != nil {
		t.Fatal(err)
	}
	listed := make(map[string]bool)
	for _, s := range reported {
		listed[s] = true
	}
	inPaid := make(map[string]bool)
	for _, s := range paid {
		inPaid[s] = true
	}
	for _, c := range all {
		if c.Sealed {
			continue
		}
		for _, set := range c.TaskSets {
			if !listed[c.Name+"/"+set] {
				t.Errorf("task set %s/%s is measured but not in reported", c.Name, set)
			}
			if c.Name != catalogs.LiveMCPBench && !inPaid[c.Name+"/"+set] {
				t.Errorf("task set %s/%s is measured but not in paid", c.Name, set)
			}
		}
	}
}
