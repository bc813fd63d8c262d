package search

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Golden rankings: the first ten tools of every request of every
// LiveMCPBench request set (tools/internal/livemcpbench/data), ranked over
// that catalog. A change that means to leave the ranking alone (a
// refactoring, a speed-up) must leave this file alone; a change that means
// to rank differently rewrites it, and its commit says what moved and by
// how much on every catalog:
//
//	go test ./search/ -run TestGoldenRankings -update-golden
var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden/livemcpbench.txt.gz from the current ranking")

const (
	goldenFile    = "testdata/golden/livemcpbench.txt.gz"
	livemcpbench  = "../tools/internal/livemcpbench/data"
	goldenTopHits = 10
)

// goldenSets are the request sets, as tools/internal/livemcpbench names
// their files.
var goldenSets = []string{"dev", "short", "everyday", "fresh", "blind", "calib"}

// livemcpbenchDocs are LiveMCPBench's tools as documents, and their
// qualified names ("domain.tool"), built as the gateway builds its
// catalog's documents (less the groups it infers), in the catalog's order:
// the golden file names tools by their place in it.
func livemcpbenchDocs(t testing.TB) ([]Document, []string) {
	return catalogDocs(t, livemcpbench)
}

// catalogDocs are the tools of the catalog in dir (a tools.json in
// LiveMCPBench's format) as documents, as livemcpbenchDocs.
func catalogDocs(t testing.TB, dir string) ([]Document, []string) {
	data, err := os.ReadFile(filepath.Join(dir, "tools.json"))
	if err != nil {
		t.Fatalf("the catalog: %v", err)
	}
	var servers []struct {
		Description string `json:"description"`
		Tools       map[string]struct {
			Tools []struct {
				Name        string `json:"name"`
				Title       string `json:"title"`
				Description string `json:"description"`
				InputSchema struct {
					Properties map[string]struct {
						Description string `json:"description"`
					} `json:"properties"`
				} `json:"inputSchema"`
			} `json:"tools"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(data, &servers); err != nil {
		t.Fatal(err)
	}
	var docs []Document
	var names []string
	for _, s := range servers {
		for _, key := range slices.Sorted(maps.Keys(s.Tools)) {
			domain := strings.Trim(invalidDomainChars.ReplaceAllString(key, "-"), "-_")
			domain = domain[:min(len(domain), 32)]
			for _, tool := range s.Tools[key].Tools {
				var params strings.Builder
				props := slices.Sorted(maps.Keys(tool.InputSchema.Properties))
				for _, p := range props {
					params.WriteString(p + " ")
					if d := tool.InputSchema.Properties[p].Description; d != "" {
						params.WriteString(d + " ")
					}
				}
				docs = append(docs, Document{
					Name: tool.Name, Title: tool.Title, Description: tool.Description,
					Params: params.String(), ParamNames: strings.Join(props, " "),
					Domain: domain, DomainDescription: s.Description,
				})
				names = append(names, domain+"."+tool.Name)
			}
		}
	}
	return docs, names
}

// invalidDomainChars are what a gateway domain name cannot hold, as
// tools/internal/livemcpbench maps server keys to domain names.
var invalidDomainChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// goldenRequests reads a request set's requests.
func goldenRequests(t testing.TB, set string) []string {
	data, err := os.ReadFile(filepath.Join(livemcpbench, "tasks-"+set+".json"))
	if err != nil {
		t.Fatalf("request set %s: %v", set, err)
	}
	var tasks []struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(data, &tasks); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(tasks))
	for i, task := range tasks {
		out[i] = task.Query
	}
	return out
}

// goldenRanking ranks a request as discover_tools does (its query
// syntax parsed, ten hits) and gives the documents' numbers.
func goldenRanking(ix *Index, request string) string {
	q, err := ParseQuery(request + " limit:10")
	if err != nil || q.Text == "" {
		return "-"
	}
	hits, _ := ix.Search(Request{Text: q.Text, Required: q.Required, Limit: goldenTopHits})
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = strconv.Itoa(h.Doc)
	}
	return strings.Join(out, " ")
}

// namedRanking is a golden line with the tools' names for their numbers.
func namedRanking(line string, names []string) string {
	fields := strings.Fields(line)
	for i := 2; i < len(fields); i++ {
		if n, err := strconv.Atoi(fields[i]); err == nil && n >= 0 && n < len(names) {
			fields[i] = names[n]
		}
	}
	return strings.Join(fields, " ")
}

func TestGoldenRankings(t *testing.T) {
	needsData(t)
	docs, names := livemcpbenchDocs(t)
	ix := NewIndex(docs)
	var lines []string
	for _, set := range goldenSets {
		for i, request := range goldenRequests(t, set) {
			ranking := "(not ranked)"
			if !raceDetector || len(lines)%10 == 0 {
				ranking = goldenRanking(ix, request)
			}
			lines = append(lines, fmt.Sprintf("%s\t%d\t%s", set, i, ranking))
		}
	}
	if *updateGolden {
		if raceDetector {
			t.Fatal("rewrite the golden file without -race")
		}
		writeGolden(t, lines)
		return
	}
	want := readGolden(t)
	if len(want) != len(lines) {
		t.Fatalf("%d rankings, the golden file holds %d", len(lines), len(want))
	}
	changed := 0
	for i := range lines {
		if raceDetector && i%10 != 0 {
			continue // a sample: the race detector makes searching slow
		}
		if lines[i] != want[i] {
			if changed++; changed <= 10 {
				t.Errorf("ranking changed:\n got %s\nwant %s", namedRanking(lines[i], names), namedRanking(want[i], names))
			}
		}
	}
	if changed > 0 {
		t.Errorf("%d of %d rankings changed; if that is meant, rewrite the golden file with -update-golden", changed, len(lines))
	}
}

func readGolden(t *testing.T) []string {
	f, err := os.Open(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func writeGolden(t *testing.T, lines []string) {
	if err := os.MkdirAll(filepath.Dir(goldenFile), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	zw.Header.Name = "" // no name or time: the same rankings give the same bytes
	for _, l := range lines {
		fmt.Fprintln(zw, l)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
