//go:build quality

package livemcpbench_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/internal/retrieval"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/catalogs"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/livemcpbench"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
)

var (
	sealed   = flag.Bool("sealed", false, "measure sealed catalogs too (go test -tags quality ... -args -sealed)")
	merged   = flag.Bool("merged", false, "also measure every catalog's task sets on the catalogs merged into one (catalogs.Merge), as catalog \"merged\" with sets \"<catalog>/<set>\"")
	rankings = flag.String("rankings", "", "write each task's ranking to this file, a JSON object a line (see rankedTask), for comparing two rankings request by request (bench/ablation)")
)

// rankedTask is a line of the -rankings file: one task, where the gateway
// and plain BM25 put its first gold tool (1 to 10; 0 for nowhere in the
// first ten), and the gateway's first three tools.
type rankedTask struct {
	Catalog string   `json:"catalog"`
	Set     string   `json:"set"`
	ID      string   `json:"id"`
	Query   string   `json:"query"`
	Gold    []string `json:"gold"`
	Rank    int      `json:"rank"`
	BM25    int      `json:"bm25"`
	Top     []string `json:"top"`
}

// firstGold is the place, from 1, of the first gold tool of task in a
// ranking of names (each counted at its first place, as retrieval.Evaluate
// counts them); 0 if it holds none.
func firstGold(task livemcpbench.Task, names []string) int {
	seen := make(map[string]bool)
	place := 0
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		place++
		for _, g := range task.Tools {
			if g == n {
				return place
			}
		}
	}
	return 0
}

// floor is the least a task set's figures may fall to.
type floor struct {
	hit1, hit3, hit5, rec5 float64
}

// floors are the quality floors of each catalog's task sets; a task set
// without one is measured and printed, not checked.
var floors = map[string]map[string]floor{
	// dev: the targets (the search reaches Hit@5 0.82, Recall@5
	// 0.57). The others under what the search reaches now (short: Hit@1
	// 0.84, Hit@3 0.97; everyday: Hit@1 0.66, Hit@3 0.84; fresh: Hit@1
	// 0.84, Hit@3 0.91; blind: Hit@1 0.86, Hit@3 0.91; calib: Hit@1 0.83,
	// Hit@3 0.94). Short's floor came down from 0.85 when the parts and
	// lexicon entries that paid nothing on requests they were not tuned on
	// were removed (docs/search.md, Which signals pay): short, a set they
	// were tuned on, lost three first places to it ("get directions from
	// the station to the museum", "find electric car chargers near me",
	// "look up the latest documentation for a library with context7").
	catalogs.LiveMCPBench: {
		livemcpbench.DevTasks:      {hit5: 0.80, rec5: 0.55},
		livemcpbench.ShortTasks:    {hit1: 0.82, hit3: 0.96},
		livemcpbench.EverydayTasks: {hit1: 0.62, hit3: 0.78},
		livemcpbench.FreshTasks:    {hit1: 0.78, hit3: 0.90},
		livemcpbench.BlindTasks:    {hit1: 0.76, hit3: 0.86},
		livemcpbench.CalibTasks:    {hit1: 0.82, hit3: 0.94},
	},
	// devtools: measured 2026-11-26 after its first ranking changes
	// (Hit@1 0.742, Hit@3 0.892, Hit@5 0.942 on its 120 blind requests),
	// less about two requests each.
	"devtools": {
		"blind": {hit1: 0.72, hit3: 0.875, hit5: 0.925},
	},
	// commerce: first measured at 2b1677c, before any ranking change was
	// measured on it (Hit@1 0.558, Hit@3 0.858, Hit@5 0.917 on its 120
	// blind requests), less about two requests each.
	"commerce": {
		"blind": {hit1: 0.54, hit3: 0.84, hit5: 0.90},
	},
	// workplace: first measured at 2b1677c and 13f6348, before any
	// ranking change was tuned on it (Hit@1 0.667, Hit@3 0.850, Hit@5
	// 0.925 on its 120 blind requests), less about two requests each.
	"workplace": {
		"blind": {hit1: 0.65, hit3: 0.83, hit5: 0.90},
	},
	// secops: first measured at 2b1677c and 57dfcf2, before any ranking
	// change was tuned on it (Hit@1 0.692, Hit@3 0.883, Hit@5 0.908 on
	// its 120 blind requests), less about two requests each.
	"secops": {
		"blind": {hit1: 0.675, hit3: 0.86, hit5: 0.89},
	},
	// content: first measured at 2aa6df3 and 998c36e, before any ranking
	// change was tuned on it (Hit@1 0.717, Hit@3 0.908, Hit@5 0.950 on
	// its 120 blind requests), less about two requests each.
	"content": {
		"blind": {hit1: 0.70, hit3: 0.89, hit5: 0.93},
	},
	// data: first measured at 2b2b355 and e4505e0, before any ranking
	// change was tuned on it (Hit@1 0.683, Hit@3 0.858, Hit@5 0.900 on
	// its 120 blind requests), less about two requests each.
	"data": {
		"blind": {hit1: 0.665, hit3: 0.84, hit5: 0.88},
	},
	// leisure: first measured at 7552942 and 92a8be5, before any ranking
	// change was tuned on it (Hit@1 0.742, Hit@3 0.892, Hit@5 0.950 on
	// its 120 blind requests), less about two requests each.
	"leisure": {
		"blind": {hit1: 0.725, hit3: 0.875, hit5: 0.93},
	},
	// finance: first measured at 7552942 and 1f89e3b, before any ranking
	// change was tuned on it (Hit@1 0.725, Hit@3 0.883, Hit@5 0.933 on
	// its 120 blind requests), less about two requests each.
	"finance": {
		"blind": {hit1: 0.705, hit3: 0.865, hit5: 0.915},
	},
	// social: first measured at 28c2fd2 and at 4108481, the ranking before
	// and after the changes of the night of 2026-11-27, before any change
	// was tuned on it (Hit@1 0.675, Hit@3 0.825, Hit@5 0.867 on its 120
	// blind requests), less about two requests each.
	"social": {
		"blind": {hit1: 0.655, hit3: 0.805, hit5: 0.85},
	},
	// learning: first measured at 28c2fd2 and at e269fcb, before any change
	// was tuned on it (Hit@1 0.783, Hit@3 0.950, Hit@5 0.967 on its 120
	// blind requests), less about two requests each.
	"learning": {
		"blind": {hit1: 0.765, hit3: 0.93, hit5: 0.95},
	},
	// media: first measured at 9bcbd78, before any change was tuned on it
	// (Hit@1 0.767, Hit@3 0.958, Hit@5 0.975 on its 120 blind requests),
	// less about two requests each.
	"media": {
		"blind": {hit1: 0.75, hit3: 0.94, hit5: 0.96},
	},
	// chain: first measured at fa31ce9, before any change was tuned on it
	// (Hit@1 0.700, Hit@3 0.842, Hit@5 0.892 on its 120 blind requests),
	// less about two requests each.
	"chain": {
		"blind": {hit1: 0.68, hit3: 0.825, hit5: 0.875},
	},
	// marketing: first measured at eb99a39, before any change was tuned
	// on it (Hit@1 0.742, Hit@3 0.875, Hit@5 0.925 on its 120 blind
	// requests), less about two requests each.
	"marketing": {
		"blind": {hit1: 0.725, hit3: 0.855, hit5: 0.905},
	},
	// documents: first measured at 74607a3, before any change was tuned
	// on it (Hit@1 0.717, Hit@3 0.850, Hit@5 0.900 on its 120 blind
	// requests), less about two requests each.
	"documents": {
		"blind": {hit1: 0.70, hit3: 0.83, hit5: 0.88},
	},
	// support: first measured at 156b845, before any change was tuned on
	// it (Hit@1 0.700, Hit@3 0.875, Hit@5 0.917 on its 120 blind
	// requests), less about two requests each.
	"support": {
		"blind": {hit1: 0.68, hit3: 0.855, hit5: 0.9},
	},
	// ai: first measured at 127cc4c, before any change was tuned on it
	// (Hit@1 0.633, Hit@3 0.817, Hit@5 0.883 on its 120 blind requests),
	// less about two requests each.
	"ai": {
		"blind": {hit1: 0.615, hit3: 0.80, hit5: 0.865},
	},
	// web: first measured at 9ead7ca, before any change was tuned on it
	// (Hit@1 0.675, Hit@3 0.867, Hit@5 0.925 on its 120 blind requests),
	// less about two requests each.
	"web": {
		"blind": {hit1: 0.655, hit3: 0.85, hit5: 0.905},
	},
	// research: first measured at ce46d2a, before any change was tuned on
	// it (Hit@1 0.842, Hit@3 0.942, Hit@5 0.950 on its 120 blind
	// requests), less about two requests each.
	"research": {
		"blind": {hit1: 0.825, hit3: 0.925, hit5: 0.93},
	},
	// backoffice: first measured at 6a6c787, before any change was tuned
	// on it (Hit@1 0.733, Hit@3 0.900, Hit@5 0.917 on its 120 blind
	// requests), less about two requests each.
	"backoffice": {
		"blind": {hit1: 0.715, hit3: 0.88, hit5: 0.9},
	},
	// assorted: first measured at 044c4e3, before any change was tuned on
	// it (Hit@1 0.758, Hit@3 0.900, Hit@5 0.933 on its 120 blind
	// requests), less about two requests each.
	"assorted": {
		"blind": {hit1: 0.74, hit3: 0.88, hit5: 0.915},
	},
}

// TestRetrievalQuality runs each task set of each catalog through
// discover_tools on an in-process gateway over the whole catalog and
// prints the metrics beside plain BM25's; catalogs without task sets are
// listed with their size, and sealed ones skipped unless -sealed. The
// floors catch regressions; bench/retrieval measures the same over real
// processes.
func TestRetrievalQuality(t *testing.T) {
	root, err := procs.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	all, err := catalogs.All(procs.ToolsDir(root))
	if err != nil {
		t.Fatal(err)
	}
	var out *json.Encoder
	if *rankings != "" {
		f, err := os.Create(*rankings)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := f.Close(); err != nil {
				t.Error(err)
			}
		}()
		out = json.NewEncoder(f)
	}
	for _, c := range all {
		if c.Sealed && !*sealed {
			t.Logf("%s: sealed, measured only with -sealed", c.Name)
			continue
		}
		t.Run(c.Name, func(t *testing.T) { measureCatalog(t, c, out) })
	}
	if *merged {
		t.Run("merged", func(t *testing.T) { measureMerged(t, all, out) })
	}
}

// measureMerged measures every task set of the catalogs (the sealed ones
// only with -sealed) on the catalogs merged into one. No floors: it
// reports.
func measureMerged(t *testing.T, all []*catalogs.Catalog, out *json.Encoder) {
	var cats []*catalogs.Catalog
	for _, c := range all {
		if len(c.TaskSets) > 0 && (!c.Sealed || *sealed) {
			cats = append(cats, c)
		}
	}
	servers, sets, err := catalogs.Merge(cats, func(c *catalogs.Catalog) []string { return c.TaskSets })
	if err != nil {
		t.Fatal(err)
	}
	named := make([]namedSet, len(sets))
	for i, s := range sets {
		named[i] = namedSet{s.Catalog + "/" + s.Set, s.Tasks}
	}
	measureSets(t, "merged", servers, named, out)
}

// namedSet is a task set and its name.
type namedSet struct {
	name  string
	tasks []livemcpbench.Task
}

func measureCatalog(t *testing.T, c *catalogs.Catalog, out *json.Encoder) {
	servers, err := c.Servers()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range servers {
		n += len(s.Tools)
	}
	if len(c.TaskSets) == 0 {
		t.Logf("%s: %d tools in %d servers, no task sets", c.Name, n, len(servers))
		return
	}
	var sets []namedSet
	for _, set := range c.TaskSets {
		tasks, err := c.Tasks(set)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, namedSet{set, tasks})
	}
	measureSets(t, c.Name, servers, sets, out)
}

// measureSets runs each task set through discover_tools on an in-process
// gateway over servers, the catalog called name, logs the figures beside
// plain BM25's, writes each ranking to out (if not nil) and checks the
// catalog's floors.
func measureSets(t *testing.T, name string, servers []*livemcpbench.Server, sets []namedSet, out *json.Encoder) {
	n := 0
	for _, s := range servers {
		n += len(s.Tools)
	}
	ip, err := livemcpbench.StartInProcess(servers)
	if err != nil {
		t.Fatal(err)
	}
	defer ip.Close()
	base := livemcpbench.NewBaseline(servers)
	for _, ns := range sets {
		set, tasks := ns.name, ns.tasks
		var ours, plain [][]string
		for _, task := range tasks {
			refs, err := livemcpbench.DiscoverRefs(context.Background(), ip.Client, task.Query+livemcpbench.RankingQuerySuffix)
			if err != nil {
				t.Fatal(err)
			}
			ours = append(ours, livemcpbench.TaskNames(task, refs))
			plain = append(plain, livemcpbench.TaskNames(task, base.RankRefs(task.Query, 10)))
			if out != nil {
				o, p := ours[len(ours)-1], plain[len(plain)-1]
				line := rankedTask{Catalog: name, Set: set, ID: task.ID, Query: task.Query, Gold: task.Tools, Rank: firstGold(task, o), BM25: firstGold(task, p), Top: o[:min(3, len(o))]}
				if err := out.Encode(line); err != nil {
					t.Fatal(err)
				}
			}
		}
		mo, mb := retrieval.Evaluate(tasks, ours), retrieval.Evaluate(tasks, plain)
		t.Logf("%s, %s tasks (%d tools in %d servers)\n%s\n%s\n%s", name, set, n, len(servers), retrieval.Header(), mb.Row("plain BM25"), mo.Row("gateway discover_tools"))
		f, ok := floors[name][set]
		if ok && (mo.Hit5 < f.hit5 || mo.Recall5 < f.rec5 || mo.Hit1 < f.hit1 || mo.Hit3 < f.hit3) {
			t.Errorf("%s %s: below the floors (Hit@1 %.2f, Hit@3 %.2f, Hit@5 %.2f, Recall@5 %.2f)", name, set, f.hit1, f.hit3, f.hit5, f.rec5)
		}
	}
}
