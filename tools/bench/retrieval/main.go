// Command retrieval measures how well discover_tools finds the right tools
// on every catalog that has labelled requests: for each catalog it starts
// a real gateway (Caddy built from cmd/caddy, in front of the catalog
// served by examples/catalog-server as one HTTP upstream per server, all
// on loopback), runs each of the catalog's task sets through
// discover_tools over MCP, and prints Recall@1/3/5/10, Hit@1/3/5, MRR@10
// and nDCG@5 next to plain Okapi BM25 (name + description + parameter
// names) computed in the same run, with the latency of each search over
// MCP, then a summary of every catalog and task set. Catalogs without task
// sets are listed with their size; sealed catalogs (a SEALED file) are
// skipped unless -sealed is given.
//
//	go run ./bench/retrieval                      every catalog, every task set
//	go run ./bench/retrieval -catalog devtools    one catalog (comma-separated for several)
//	go run ./bench/retrieval -tasks short         one task set, in the catalogs that have it
//	go run ./bench/retrieval -sealed              the sealed catalogs too
//	go run ./bench/retrieval -merged              every catalog's servers behind one gateway,
//	                                              each catalog's task sets measured there
//	go run ./bench/retrieval -tasks held-out.json -v
//	                                              a task file, over LiveMCPBench's catalog
//	                                              (or -catalog's, or -tools')
//	go run ./bench/retrieval -tools tools.json -tasks tasks.json
//	                                              any catalog in LiveMCPBench's format
//	go run ./bench/retrieval -catalog devtools -explain "show me PR 12"
//	                                              why each tool ranks where it does for one
//	                                              request, on one catalog (caddy mcp-gateway
//	                                              search --explain over the catalog's gateway)
//
// LiveMCPBench's task sets: dev, short, everyday, fresh, blind, calib.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/caddy-mcp/mcp-gateway/internal/retrieval"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/catalogs"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/livemcpbench"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// options are the command's flags.
type options struct {
	tasks    string // a task set's name or a task file; "" for every set
	tools    string // a tools.json to measure instead of the catalogs
	catalogs string // comma-separated catalog names; "" for every catalog
	sealed   bool   // measure sealed catalogs too
	verbose  bool   // list the misses
	explain  string // a request to explain instead of measuring
	merged   bool   // measure the chosen catalogs merged into one (see merged.go)
}

func main() {
	var o options
	flag.StringVar(&o.tasks, "tasks", "", `a task set ("dev", "short", ...: measured in every catalog that has it) or a JSON task file; default every task set`)
	flag.StringVar(&o.tools, "tools", "", "a tools.json in LiveMCPBench's format to measure instead of the repository's catalogs (its task sets are the tasks-*.json beside it, or -tasks)")
	flag.StringVar(&o.catalogs, "catalog", "", "the catalogs to measure, comma-separated (default: every catalog that is not sealed)")
	flag.BoolVar(&o.sealed, "sealed", false, "measure sealed catalogs too (they are never tuned on: measure them only at the start and the end of a change)")
	flag.BoolVar(&o.verbose, "v", false, "list the tasks whose first result is not a gold tool, and say where plain BM25 ranks one first (never for a sealed catalog)")
	flag.BoolVar(&o.merged, "merged", false, "put the chosen catalogs' servers behind one gateway and measure each catalog's task sets there, among every other catalog's tools")
	flag.StringVar(&o.explain, "explain", "", "a request to explain on one catalog (-catalog, or LiveMCPBench's) instead of measuring: why each tool ranks where it does")
	flag.Parse()
	if err := run(o); err != nil {
		log.Fatal(err)
	}
}

// measurement is one task set measured on one catalog.
type measurement struct {
	catalog, set  string
	tasks         int
	gateway, bm25 retrieval.Metrics
	// lead1 and lead3 are the gateway's paired margins over plain BM25 at
	// Hit@1 and Hit@3.
	lead1, lead3 retrieval.Margin
}

func run(o options) error {
	root, err := procs.RepoRoot()
	if err != nil {
		return err
	}
	plan, err := planRuns(procs.ToolsDir(root), o)
	if err != nil {
		return err
	}
	if o.merged {
		if o.tools != "" {
			return fmt.Errorf("-merged merges the repository's catalogs: give -catalog, not -tools")
		}
		dir, err := os.MkdirTemp("", "merged-catalog-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		merged, err := mergeCatalogs(procs.ToolsDir(root), plan, dir)
		if err != nil {
			return err
		}
		plan = []catalogRun{merged}
	}
	if o.explain != "" {
		if len(plan) != 1 || plan[0].note != "" {
			return fmt.Errorf("-explain explains a request on one catalog: name it with -catalog (sealed ones with -sealed too)")
		}
	}
	bins, err := buildBinaries(root)
	if err != nil {
		return err
	}
	defer os.RemoveAll(bins.dir)
	if o.explain != "" {
		return explain(bins, plan[0], o.explain, os.Stdout)
	}

	var results []measurement
	for _, p := range plan {
		servers, err := livemcpbench.Servers(p.toolsPath)
		if err != nil {
			return fmt.Errorf("%s: %v", p.name, err)
		}
		fmt.Printf("== %s: %d tools in %d domains (%s)\n", p.name, countTools(servers), len(servers), p.toolsPath)
		if p.note != "" {
			fmt.Printf("%s\n\n", p.note)
			continue
		}
		if len(p.sets) == 0 {
			fmt.Printf("no task sets\n\n")
			continue
		}
		ms, err := measureCatalog(bins, p, servers, o.verbose)
		if err != nil {
			return fmt.Errorf("%s: %v", p.name, err)
		}
		results = append(results, ms...)
	}
	printSummary(results)
	return nil
}

// catalogRun is what to measure of one catalog.
type catalogRun struct {
	name      string
	toolsPath string
	sets      []taskSet
	note      string // if set, why the catalog is not measured
	sealed    bool   // measured, but its misses are never listed
}

type taskSet struct{ name, path string }

// planRuns decides which catalogs and task sets to measure.
func planRuns(toolsDir string, o options) ([]catalogRun, error) {
	taskFile := o.tasks != "" && isFile(o.tasks)
	if o.tools != "" {
		if o.catalogs != "" {
			return nil, fmt.Errorf("-tools and -catalog: give one or the other")
		}
		r := catalogRun{name: o.tools, toolsPath: o.tools}
		switch {
		case taskFile:
			r.sets = []taskSet{{filepath.Base(o.tasks), o.tasks}}
		case o.tasks != "":
			r.sets = []taskSet{{o.tasks, filepath.Join(filepath.Dir(o.tools), "tasks-"+o.tasks+".json")}}
		default:
			files, _ := filepath.Glob(filepath.Join(filepath.Dir(o.tools), "tasks-*.json"))
			for _, f := range files {
				r.sets = append(r.sets, taskSet{strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "tasks-"), ".json"), f})
			}
		}
		return []catalogRun{r}, nil
	}
	all, err := catalogs.All(toolsDir)
	if err != nil {
		return nil, err
	}
	names := o.catalogs
	if taskFile && names == "" {
		names = catalogs.LiveMCPBench
	}
	chosen, err := catalogs.Select(all, names, o.sealed)
	if err != nil {
		return nil, err
	}
	var plan []catalogRun
	for _, c := range all {
		r := catalogRun{name: c.Name, toolsPath: c.ToolsPath(), sealed: c.Sealed}
		switch {
		case !slices.Contains(chosen, c):
			if !c.Sealed || names != "" {
				continue
			}
			r.note = "sealed: measured only with -sealed"
		case taskFile:
			r.sets = []taskSet{{filepath.Base(o.tasks), o.tasks}}
		case o.tasks != "":
			if !c.HasTaskSet(o.tasks) {
				if o.catalogs == "" {
					continue
				}
				return nil, fmt.Errorf("catalog %s has no task set %q (it has %v)", c.Name, o.tasks, c.TaskSets)
			}
			r.sets = []taskSet{{o.tasks, c.TasksPath(o.tasks)}}
		default:
			for _, s := range c.TaskSets {
				r.sets = append(r.sets, taskSet{s, c.TasksPath(s)})
			}
		}
		plan = append(plan, r)
	}
	if o.tasks != "" && !slices.ContainsFunc(plan, func(r catalogRun) bool { return len(r.sets) > 0 }) {
		return nil, fmt.Errorf("no catalog has task set %q", o.tasks)
	}
	return plan, nil
}

func isFile(s string) bool {
	return strings.HasSuffix(s, ".json") || strings.ContainsRune(s, os.PathSeparator)
}

// measureCatalog starts a gateway in front of the catalog and measures
// each of its task sets.
func measureCatalog(bins binaries, p catalogRun, servers []*livemcpbench.Server, verbose bool) ([]measurement, error) {
	session, stop, err := startGateway(bins, p.toolsPath, servers)
	if err != nil {
		return nil, err
	}
	defer stop()
	base := livemcpbench.NewBaseline(servers)
	var out []measurement
	for _, set := range p.sets {
		tasks, err := livemcpbench.Tasks(set.path)
		if err != nil {
			return nil, fmt.Errorf("task set %s: %v", set.name, err)
		}
		fmt.Printf("-- %s: %d tasks (%s)\n", set.name, len(tasks), set.path)
		if verbose && p.sealed {
			fmt.Printf("sealed: its misses are not listed\n")
		}
		m, err := measureSet(session, base, tasks, verbose && !p.sealed)
		if err != nil {
			return nil, fmt.Errorf("task set %s: %v", set.name, err)
		}
		m.catalog, m.set = p.name, set.name
		out = append(out, m)
	}
	return out, nil
}

// measureSet runs tasks through the gateway and the baseline and prints
// their figures.
func measureSet(session *mcp.ClientSession, base *livemcpbench.Baseline, tasks []livemcpbench.Task, verbose bool) (measurement, error) {
	ctx := context.Background()
	var ours, plain [][]string
	var latencies []time.Duration
	for _, task := range tasks {
		start := time.Now()
		refs, err := livemcpbench.DiscoverRefs(ctx, session, task.Query+livemcpbench.RankingQuerySuffix)
		if err != nil {
			return measurement{}, err
		}
		latencies = append(latencies, time.Since(start))
		ours = append(ours, livemcpbench.TaskNames(task, refs))
		plain = append(plain, livemcpbench.TaskNames(task, base.RankRefs(task.Query, 10)))
	}
	if len(tasks) == 0 {
		return measurement{}, fmt.Errorf("no tasks")
	}
	mo, mb := retrieval.Evaluate(tasks, ours), retrieval.Evaluate(tasks, plain)
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	fmt.Println(retrieval.Header())
	fmt.Println(mb.Row("plain BM25"))
	fmt.Println(mo.Row("gateway discover_tools"))
	fmt.Printf("discover_tools over MCP (streamable HTTP through Caddy): median %s, p90 %s, max %s per search\n\n",
		latencies[len(latencies)/2].Round(time.Microsecond), latencies[len(latencies)*9/10].Round(time.Microsecond), latencies[len(latencies)-1].Round(time.Microsecond))
	if verbose {
		fmt.Println("tasks whose first result is not a gold tool:")
		for i, task := range tasks {
			if len(ours[i]) > 0 && slices.Contains(task.Tools, ours[i][0]) {
				continue
			}
			fmt.Printf("- %q\n  gold %v\n  got  %v\n", task.Query, task.Tools, ours[i][:min(5, len(ours[i]))])
			if len(plain[i]) > 0 && slices.Contains(task.Tools, plain[i][0]) {
				fmt.Printf("  plain BM25 ranks a gold tool first\n")
			}
		}
		fmt.Println()
	}
	return measurement{tasks: len(tasks), gateway: mo, bm25: mb,
		lead1: retrieval.CompareHits(tasks, ours, plain, 1), lead3: retrieval.CompareHits(tasks, ours, plain, 3)}, nil
}

// printSummary prints Hit@1/3/5 of every catalog and task set, the
// gateway's beside plain BM25's, and the gateway's lead at Hit@1 and
// Hit@3 with its paired standard error and the requests won and lost.
func printSummary(results []measurement) {
	if len(results) == 0 {
		return
	}
	fmt.Println("== summary: Hit@1 / Hit@3 / Hit@5, plain BM25 and the gateway's discover_tools; the gateway's lead ± paired standard error (requests won, lost)")
	setWidth := len("task set")
	for _, m := range results {
		setWidth = max(setWidth, len(m.set))
	}
	fmt.Printf("%-14s %-*s %5s   %-20s %-20s %-26s %s\n", "catalog", setWidth, "task set", "tasks", "plain BM25", "discover_tools", "Hit@1 lead", "Hit@3 lead")
	for _, m := range results {
		fmt.Printf("%-14s %-*s %5d   %.3f %.3f %.3f    %.3f %.3f %.3f    %-26s %s\n", m.catalog, setWidth, m.set, m.tasks,
			m.bm25.Hit1, m.bm25.Hit3, m.bm25.Hit5, m.gateway.Hit1, m.gateway.Hit3, m.gateway.Hit5, formatMargin(m.lead1), formatMargin(m.lead3))
	}
}

// formatMargin writes a margin as "+0.125 ± 0.044 (+22 −7)".
func formatMargin(m retrieval.Margin) string {
	return fmt.Sprintf("%+.3f ± %.3f (+%d −%d)", m.Lead, m.StdErr, m.Won, m.Lost)
}

func countTools(servers []*livemcpbench.Server) int {
	n := 0
	for _, s := range servers {
		n += len(s.Tools)
	}
	return n
}
