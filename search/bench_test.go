package search

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/internal/gencatalog"
)

// Scale benchmarks over generated catalogs:
//
//	go test -run '^$' -bench Build -benchtime 5x ./search/
//	go test -run '^$' -bench Search -benchtime 2000x ./search/
//	go test -run '^$' -bench SearchSteps -benchtime 2000x ./search/
//
// BenchmarkBuild reports the time to index a catalog and the index's heap
// per tool; BenchmarkSearch reports query latency percentiles.

var benchSizes = []int{1_000, 10_000, 100_000}

func generatedDocs(n int) ([]gencatalog.Service, []Document) {
	services, tools := gencatalog.Generate(n, 1)
	desc := make(map[string]string, len(services))
	for _, s := range services {
		desc[s.Name] = s.Description
	}
	docs := make([]Document, len(tools))
	for i, t := range tools {
		var params, names strings.Builder
		for name, d := range t.Params {
			params.WriteString(name + " " + d + " ")
			names.WriteString(name + " ")
		}
		docs[i] = Document{Name: t.Name, Description: t.Description, Params: params.String(), ParamNames: names.String(), Domain: t.Domain, DomainDescription: desc[t.Domain]}
	}
	return services, docs
}

func BenchmarkBuild(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			_, docs := generatedDocs(n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				NewIndex(docs)
			}
			b.StopTimer()
			b.ReportMetric(float64(indexHeap(docs))/float64(n), "index-bytes/tool")
		})
	}
}

// indexHeap is the heap an index of docs holds once built.
func indexHeap(docs []Document) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC() // the second cycle finishes sweeping the first's garbage
	runtime.ReadMemStats(&before)
	ix := NewIndex(docs)
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(ix)
	runtime.KeepAlive(docs) // the index holds none of the documents' text
	return after.HeapAlloc - before.HeapAlloc
}

func BenchmarkSearch(b *testing.B) {
	benchSearchLatency(b, func(queries []string, i int) string { return queries[i%len(queries)] })
}

// BenchmarkSearchSteps is BenchmarkSearch for requests of three steps
// ("a, b, then c" from three generated queries), each ranked on its own
// as well as whole.
func BenchmarkSearchSteps(b *testing.B) {
	benchSearchLatency(b, func(queries []string, i int) string {
		j := 3 * (i % (len(queries) / 3))
		return queries[j] + ", " + queries[j+1] + ", then " + queries[j+2]
	})
}

// benchSearchLatency reports the p50 and p99 latency of searches for the
// texts query makes from generated queries, at each catalog size.
func benchSearchLatency(b *testing.B, query func(queries []string, i int) string) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			services, docs := generatedDocs(n)
			ix := NewIndex(docs)
			queries := gencatalog.Queries(services, 1000, 2)
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				text := query(queries, i)
				start := time.Now()
				ix.Search(Request{Text: text, Limit: DefaultLimit})
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// TestGeneratedCatalogSearch checks that the scale benchmarks measure real
// searches: queries over a generated catalog find the tools they name.
func TestGeneratedCatalogSearch(t *testing.T) {
	_, docs := generatedDocs(2000)
	ix := NewIndex(docs)
	target := docs[1234]
	words := strings.Split(target.Name, "_")
	hits, _ := ix.Search(Request{Text: strings.Join(words, " "), Limit: 3})
	if len(hits) == 0 || docs[hits[0].Doc].Name != target.Name {
		t.Errorf("searching for %q's words found %v", target.Name, hits)
	}
}

// BenchmarkGlossaryLoad reports what the first catalog or query with
// Chinese text pays once: unpacking the glossary, and the heap it keeps.
//
//	go test -run '^$' -bench GlossaryLoad -benchtime 5x ./search/
func BenchmarkGlossaryLoad(b *testing.B) {
	for i := 0; i < b.N; i++ {
		loadGlossary()
	}
	b.StopTimer()
	glossary.text, glossary.lines = "", nil
	b.ReportMetric(heapMiBKeptBy(loadGlossary), "heap-MiB")
	b.ReportMetric(float64(len(glossary.lines)), "headwords")
}

// heapMiBKeptBy is the heap, in MiB, that what load builds keeps.
func heapMiBKeptBy(load func()) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	load()
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
}

// BenchmarkWordVectorsLoad reports what the first index pays once:
// unpacking the word vectors, and the heap they keep.
//
//	go test -run '^$' -bench WordVectorsLoad -benchtime 5x ./search/
func BenchmarkWordVectorsLoad(b *testing.B) {
	for i := 0; i < b.N; i++ {
		loadWordVectors()
	}
	b.StopTimer()
	wordVectors.words, wordVectors.starts, wordVectors.scales, wordVectors.values = "", nil, nil, nil
	b.ReportMetric(heapMiBKeptBy(loadWordVectors), "heap-MiB")
	b.ReportMetric(float64(len(wordVectors.starts)), "words")
}
