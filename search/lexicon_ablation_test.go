//go:build ablation

package search

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLexiconEntries measures what each thesaurus group and each idiom
// pays: every unsealed catalog's requests ranked with the lexicon whole
// and without the entry, request by request (Hit@1 and Hit@3, the
// requests each gains and loses). The documents are built as
// TestGoldenRankings builds them (less the groups the gateway infers), so
// the figures are near the quality test's, not equal to them:
//
//	go test -tags ablation -run TestLexiconEntries -v ./search/ > entries.txt
func TestLexiconEntries(t *testing.T) {
	type catalog struct {
		name, dir string
		sets      []string
	}
	cats := []catalog{
		{"livemcpbench", livemcpbench, []string{"calib", "blind", "everyday", "fresh", "short", "dev"}},
		{"devtools", "../tools/internal/catalogs/devtools", []string{"blind"}},
		{"commerce", "../tools/internal/catalogs/commerce", []string{"blind"}},
		{"workplace", "../tools/internal/catalogs/workplace", []string{"blind"}},
		{"secops", "../tools/internal/catalogs/secops", []string{"blind"}},
		{"content", "../tools/internal/catalogs/content", []string{"blind"}},
		{"data", "../tools/internal/catalogs/data", []string{"blind"}},
		{"leisure", "../tools/internal/catalogs/leisure", []string{"blind"}},
		{"finance", "../tools/internal/catalogs/finance", []string{"blind"}},
		{"social", "../tools/internal/catalogs/social", []string{"blind"}},
		{"learning", "../tools/internal/catalogs/learning", []string{"blind"}},
		{"media", "../tools/internal/catalogs/media", []string{"blind"}},
		{"chain", "../tools/internal/catalogs/chain", []string{"blind"}},
		{"marketing", "../tools/internal/catalogs/marketing", []string{"blind"}},
		{"documents", "../tools/internal/catalogs/documents", []string{"blind"}},
		{"support", "../tools/internal/catalogs/support", []string{"blind"}},
		{"ai", "../tools/internal/catalogs/ai", []string{"blind"}},
		{"web", "../tools/internal/catalogs/web", []string{"blind"}},
		{"research", "../tools/internal/catalogs/research", []string{"blind"}},
		{"backoffice", "../tools/internal/catalogs/backoffice", []string{"blind"}},
		{"assorted", "../tools/internal/catalogs/assorted", []string{"blind"}},
	}
	type request struct {
		set, text string
		gold      map[string]bool
	}
	type ranked struct {
		ix       *Index
		names    []string
		requests []request
	}
	var all []ranked
	for _, c := range cats {
		docs, names := catalogDocs(t, c.dir)
		r := ranked{ix: NewIndex(docs), names: names}
		for _, set := range c.sets {
			data, err := os.ReadFile(filepath.Join(c.dir, "tasks-"+set+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var tasks []struct {
				ID    string   `json:"task_id"`
				Query string   `json:"query"`
				Tools []string `json:"tools"`
			}
			if err := json.Unmarshal(data, &tasks); err != nil {
				t.Fatal(err)
			}
			for _, task := range tasks {
				gold := make(map[string]bool)
				for _, g := range task.Tools {
					gold[g] = true
				}
				name := c.name + "/" + set
				if set == "calib" && unreadCalib[calibBatchOf(task.ID)] {
					name += "-unread"
				}
				r.requests = append(r.requests, request{name, task.Query, gold})
			}
		}
		all = append(all, r)
	}
	// first is the place (1 to 10, 0 for none) of each request's first
	// gold tool.
	first := func() map[string][]int {
		out := make(map[string][]int)
		for _, r := range all {
			for _, q := range r.requests {
				place := 0
				for i, doc := range strings.Fields(goldenRanking(r.ix, q.text)) {
					var d int
					fmt.Sscan(doc, &d)
					full := r.names[d]
					bare := full[strings.IndexByte(full, '.')+1:]
					if q.gold[full] || q.gold[bare] {
						place = i + 1
						break
					}
				}
				out[q.set] = append(out[q.set], place)
			}
		}
		return out
	}
	base := first()
	sets := slices.Sorted(maps.Keys(base))
	report := func(entry string) {
		without := first()
		var b strings.Builder
		fmt.Fprintf(&b, "%-40s", entry)
		for _, s := range sets {
			var won1, lost1, won3, lost3 int
			for i, p := range base[s] {
				q := without[s][i]
				h := func(p, k int) bool { return p > 0 && p <= k }
				won1 += btoi(h(p, 1) && !h(q, 1))
				lost1 += btoi(!h(p, 1) && h(q, 1))
				won3 += btoi(h(p, 3) && !h(q, 3))
				lost3 += btoi(!h(p, 3) && h(q, 3))
			}
			fmt.Fprintf(&b, " | %s +%d-%d/+%d-%d", s, won1, lost1, won3, lost3)
		}
		fmt.Println(b.String())
	}
	fmt.Println("entry: per set, Hit@1 requests it wins-loses / Hit@3 requests it wins-loses")
	groups := synonymGroups
	for i, g := range groups {
		rest := slices.Delete(slices.Clone(groups), i, i+1)
		syn := addSynonymGroups(make(map[string][]string), rest)
		for _, r := range all {
			r.ix.synonyms = syn
		}
		report("thesaurus: " + g)
	}
	full := addSynonymGroups(make(map[string][]string), groups)
	for _, r := range all {
		r.ix.synonyms = full
	}
	for _, phrase := range slices.Sorted(maps.Keys(idioms)) {
		meaning := idioms[phrase]
		delete(idioms, phrase)
		report("idiom: " + phrase + " = " + meaning)
		idioms[phrase] = meaning
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// unreadCalib are the calibration batches whose misses were never read
// (tools/internal/livemcpbench/data/README.md).
var unreadCalib = func() map[int]bool {
	out := make(map[int]bool)
	for _, r := range [][2]int{{17, 18}, {21, 22}, {25, 26}, {29, 30}, {33, 34}, {37, 38}, {41, 46}, {49, 54}, {56, 56}, {58, 62}, {64, 65}, {68, 68}, {70, 78}} {
		for n := r[0]; n <= r[1]; n++ {
			out[n] = true
		}
	}
	return out
}()

func calibBatchOf(id string) int {
	var n, m int
	fmt.Sscanf(id, "calib-%d-%d", &n, &m)
	return n
}
