// Command ablation measures what each part of the search's ranking pays:
// for each part that can be switched off (search/ablation.go's
// ablationParts), it runs the quality test (internal/livemcpbench,
// TestRetrievalQuality, in-process gateway) on a build with that part
// switched off, and compares every request's ranking with the full
// ranking's, request by request. It prints, in Markdown, Hit@1 and Hit@3
// of every unsealed catalog's task sets without each part, and what the
// part pays (with it, less without it) with the standard error of the
// paired difference.
//
//	go run ./bench/ablation                          every part
//	go run ./bench/ablation -parts meaning,typo      two parts, each on its own
//	go run ./bench/ablation -parts meaning+typo      two parts at once
//	go run ./bench/ablation -parts typo -changed devtools/blind
//	                                                 and the requests it moved
//	go run ./bench/ablation -dir /tmp/ablation       keep the rankings there,
//	                                                 and reuse those already made
//	go run ./bench/ablation -dir /tmp/ablation -parts none
//	                                                 the ranking as it is now against
//	                                                 the full ranking kept in the
//	                                                 directory: a change's effect
//	go run ./bench/ablation -merged ...              the rankings files also hold each
//	                                                 set ranked on the catalogs merged
//	                                                 into one (catalog "merged", set
//	                                                 "<catalog>/<set>"), for comparing
//	                                                 request by request; the tables
//	                                                 report the catalogs alone
//
// Sealed catalogs are never measured. LiveMCPBench's calibration set is
// also reported as "calib-unread": its batches whose misses were never
// read (see livemcpbench/data/README.md), the nearest to held-out figures.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
)

// switchVar is the search package's build-time list of parts switched off.
const switchVar = "github.com/caddy-mcp/mcp-gateway/search.switchedOff"

// unreadCalibBatches are the calibration batches whose misses were never
// read (livemcpbench/data/README.md).
var unreadCalibBatches = batchSet("17 18 21 22 25 26 29 30 33 37 38 41 43-46 49 50 52-54 56 58-60 62 64 65 68 70 71-78")

// reported are the task sets reported, in order: catalog/set.
var reported = []string{
	"livemcpbench/calib", "livemcpbench/calib-unread", "livemcpbench/blind", "livemcpbench/everyday",
	"livemcpbench/fresh", "livemcpbench/dev", "livemcpbench/short", "devtools/blind", "commerce/blind",
	"workplace/blind", "secops/blind", "content/blind", "data/blind", "leisure/blind", "finance/blind",
	"social/blind", "learning/blind", "media/blind", "chain/blind", "marketing/blind", "documents/blind",
	"support/blind", "ai/blind", "web/blind", "research/blind", "backoffice/blind", "assorted/blind",
}

// paid are the task sets of the table of what each part pays: every
// reported set but LiveMCPBench's small ones (everyday, fresh, dev,
// short), which calib-unread and blind stand for.
var paid = []string{
	"livemcpbench/calib-unread", "livemcpbench/calib", "livemcpbench/blind", "devtools/blind",
	"commerce/blind", "workplace/blind", "secops/blind", "content/blind", "data/blind", "leisure/blind",
	"finance/blind", "social/blind", "learning/blind", "media/blind", "chain/blind", "marketing/blind",
	"documents/blind", "support/blind", "ai/blind", "web/blind", "research/blind",
	"backoffice/blind", "assorted/blind",
}

// ranked is a line of the quality test's -rankings file.
type ranked struct {
	Catalog string   `json:"catalog"`
	Set     string   `json:"set"`
	ID      string   `json:"id"`
	Query   string   `json:"query"`
	Gold    []string `json:"gold"`
	Rank    int      `json:"rank"`
	BM25    int      `json:"bm25"`
	Top     []string `json:"top"`
}

// part is a part of the ranking, as search/ablation.go lists it.
type part struct{ kind, name, what string }

func main() {
	parts := flag.String("parts", "", "the parts to switch off, comma-separated, each on its own; a+b switches a and b off at once (default: every part)")
	dir := flag.String("dir", "", "keep the rankings in this directory, and reuse those it holds (default: a temporary directory)")
	withMerged := flag.Bool("merged", false, "also rank each set on the catalogs merged into one, in the rankings files (catalog \"merged\")")
	changed := flag.String("changed", "", "list the requests of these task sets (catalog/set, comma-separated) whose first place or first three switching a part off changed")
	flag.Parse()
	if err := run(*parts, *dir, *changed, *withMerged); err != nil {
		log.Fatal(err)
	}
}

func run(partList, dir, changed string, merged bool) error {
	root, err := procs.RepoRoot()
	if err != nil {
		return err
	}
	all, err := readParts(filepath.Join(root, "search", "ablation.go"))
	if err != nil {
		return err
	}
	var runs []part
	if partList == "" {
		runs = all
	} else {
		for _, name := range strings.Split(partList, ",") {
			p := part{name: strings.TrimSpace(name)}
			for _, q := range all {
				if q.name == p.name {
					p = q
				}
			}
			runs = append(runs, p)
		}
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "ablation-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	toolsDir := procs.ToolsDir(root)
	base, err := rankings(toolsDir, dir, "", merged)
	if err != nil {
		return err
	}
	results := make([][]ranked, len(runs))
	for i, p := range runs {
		if results[i], err = rankings(toolsDir, dir, p.name, merged); err != nil {
			return err
		}
		if len(results[i]) != len(base) {
			return fmt.Errorf("%s: %d rankings, the full ranking has %d", p.name, len(results[i]), len(base))
		}
	}
	printTables(base, runs, results)
	if changed != "" {
		for i, p := range runs {
			printChanged(p.name, base, results[i], strings.Split(changed, ","))
		}
	}
	return nil
}

// readParts reads the parts from the composite literal of ablationParts
// in search/ablation.go: the list the search package checks names against.
func readParts(path string) ([]part, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	var out []part
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "ablationParts" || len(vs.Values) != 1 {
			return true
		}
		list, _ := vs.Values[0].(*ast.CompositeLit)
		for _, e := range list.Elts {
			lit, _ := e.(*ast.CompositeLit)
			var fields []string
			for _, v := range lit.Elts {
				if b, ok := v.(*ast.BasicLit); ok {
					s, _ := strconv.Unquote(b.Value)
					fields = append(fields, s)
				}
			}
			if len(fields) == 3 {
				out = append(out, part{fields[0], fields[1], fields[2]})
			}
		}
		return false
	})
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no ablationParts found", path)
	}
	return out, nil
}

// rankings runs the quality test with the parts of switched off ("" for
// none), and on the merged catalog too if merged, and reads the rankings
// it writes; a file already in dir is read instead.
func rankings(toolsDir, dir, switched string, merged bool) ([]ranked, error) {
	name := "full"
	if switched != "" {
		name = strings.ReplaceAll(switched, "+", "_")
	}
	file := filepath.Join(dir, name+".jsonl")
	if _, err := os.Stat(file); err != nil {
		args := []string{"test", "-count=1", "-tags", "quality", "-run", "TestRetrievalQuality"}
		if switched != "" && switched != "none" {
			args = append(args, "-ldflags=-X="+switchVar+"="+strings.ReplaceAll(switched, "+", ","))
		}
		args = append(args, "./internal/livemcpbench/", "-args", "-rankings", file+".part")
		if merged {
			args = append(args, "-merged")
		}
		cmd := exec.Command("go", args...)
		cmd.Dir = toolsDir
		fmt.Fprintf(os.Stderr, "ablation: %s\n", name)
		out, err := cmd.CombinedOutput()
		// The test fails when a part's absence takes a set below its
		// floor; its rankings are whole all the same.
		if _, statErr := os.Stat(file + ".part"); statErr != nil {
			return nil, fmt.Errorf("%s: %v\n%s", name, err, out)
		}
		if err := os.Rename(file+".part", file); err != nil {
			return nil, err
		}
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []ranked
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r ranked
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// setsOf is each reported set's requests, by their places in a rankings
// file (every file holds the same requests in the same order).
func setsOf(rs []ranked) map[string][]int {
	out := make(map[string][]int)
	for i, r := range rs {
		key := r.Catalog + "/" + r.Set
		out[key] = append(out[key], i)
		if key == "livemcpbench/calib" && unreadCalibBatches[calibBatch(r.ID)] {
			out[key+"-unread"] = append(out[key+"-unread"], i)
		}
	}
	return out
}

// calibBatch is the batch of a calibration request's id ("calib-42-81").
func calibBatch(id string) int {
	f := strings.Split(id, "-")
	if len(f) != 3 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

func batchSet(spec string) map[int]bool {
	out := make(map[int]bool)
	for _, f := range strings.Fields(spec) {
		lo, hi, ok := strings.Cut(f, "-")
		a, _ := strconv.Atoi(lo)
		b := a
		if ok {
			b, _ = strconv.Atoi(hi)
		}
		for n := a; n <= b; n++ {
			out[n] = true
		}
	}
	return out
}

func hit(rank, k int) bool { return rank > 0 && rank <= k }

// paired compares two rankings of the same requests at Hit@k: the share
// with a hit in each, and how many requests the first has a hit for and
// the second not (more), and the other way round (less).
type paired struct {
	n          int
	with, wo   float64
	more, less int
}

func compare(with, without []ranked, idx []int, k int) paired {
	p := paired{n: len(idx)}
	for _, i := range idx {
		a, b := hit(with[i].Rank, k), hit(without[i].Rank, k)
		if a {
			p.with++
		}
		if b {
			p.wo++
		}
		switch {
		case a && !b:
			p.more++
		case b && !a:
			p.less++
		}
	}
	p.with /= float64(p.n)
	p.wo /= float64(p.n)
	return p
}

// printTables prints the two tables: Hit@1 and Hit@3 without each part,
// and what each part pays.
func printTables(base []ranked, runs []part, results [][]ranked) {
	sets := setsOf(base)
	fmt.Println("Hit@1 / Hit@3 with every part, and without each:")
	fmt.Println()
	fmt.Printf("| part |")
	for _, s := range reported {
		fmt.Printf(" %s (%d) |", strings.TrimPrefix(s, "livemcpbench/"), len(sets[s]))
	}
	fmt.Printf("\n|---|%s\n", strings.Repeat("---|", len(reported)))
	fmt.Printf("| every part |")
	for _, s := range reported {
		p1, p3 := compare(base, base, sets[s], 1), compare(base, base, sets[s], 3)
		fmt.Printf(" %.3f / %.3f |", p1.with, p3.with)
	}
	fmt.Println()
	for i, p := range runs {
		fmt.Printf("| %s |", p.name)
		for _, s := range reported {
			p1, p3 := compare(base, results[i], sets[s], 1), compare(base, results[i], sets[s], 3)
			fmt.Printf(" %.3f / %.3f |", p1.wo, p3.wo)
		}
		fmt.Println()
	}
	fmt.Println()
	fmt.Println("What each part pays, Hit@1 and Hit@3: with it less without it, ± the standard error of the paired difference, and the requests it wins and loses:")
	fmt.Println()
	fmt.Printf("| part |")
	for _, k := range []int{1, 3} {
		for _, s := range paid {
			fmt.Printf(" %s Hit@%d |", strings.TrimPrefix(s, "livemcpbench/"), k)
		}
	}
	fmt.Printf("\n|---|%s\n", strings.Repeat("---|", 2*len(paid)))
	for i, p := range runs {
		fmt.Printf("| %s |", p.name)
		for _, k := range []int{1, 3} {
			for _, s := range paid {
				c := compare(base, results[i], sets[s], k)
				fmt.Printf(" %s |", c.pays())
			}
		}
		fmt.Println()
	}
	fmt.Println()
}

// pays is what the first ranking gains over the second: the difference,
// its standard error and the requests won and lost.
func (p paired) pays() string {
	d := p.with - p.wo
	se := math.Sqrt(max(float64(p.more+p.less)/float64(p.n)-d*d, 0) / float64(p.n))
	return fmt.Sprintf("%+.3f ±%.3f (+%d −%d)", d, se, p.more, p.less)
}

// printChanged lists the requests of sets whose first place or first
// three the part's absence changed.
func printChanged(name string, base, without []ranked, sets []string) {
	idx := setsOf(base)
	for _, s := range sets {
		fmt.Printf("Without %s, %s:\n", name, s)
		for _, i := range idx[s] {
			a, b := base[i], without[i]
			if hit(a.Rank, 1) == hit(b.Rank, 1) && hit(a.Rank, 3) == hit(b.Rank, 3) {
				continue
			}
			fmt.Printf("- %q (gold %v): place %d without, %d with; BM25 %d\n  with    %v\n  without %v\n", a.Query, a.Gold, b.Rank, a.Rank, a.BM25, a.Top, b.Top)
		}
		fmt.Println()
	}
}
