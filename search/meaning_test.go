package search

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

func TestWordVectorsCarryMeaning(t *testing.T) {
	needsData(t)
	if wordVectorDims() != 16 {
		t.Fatalf("word vectors have %d dimensions, want 16 (is wordvectors.gz intact?)", wordVectorDims())
	}
	vec := func(w string) []float32 {
		v := make([]float32, wordVectorDims())
		row := wordVectorRow(w)
		if row < 0 {
			t.Fatalf("no vector for %q", w)
		}
		addWordVector(v, row, 1)
		return v
	}
	cos := func(a, b []float32) float64 {
		var dot, na, nb float64
		for k := range a {
			dot += float64(a[k]) * float64(b[k])
			na += float64(a[k]) * float64(a[k])
			nb += float64(b[k]) * float64(b[k])
		}
		return dot / (math.Sqrt(na) * math.Sqrt(nb))
	}
	for _, c := range []struct{ word, near, far string }{
		{"laptop", "computer", "banana"},
		{"purchase", "buy", "river"},
		{"weather", "forecast", "piano"},
		{"picture", "photo", "lawyer"},
	} {
		if near, far := cos(vec(c.word), vec(c.near)), cos(vec(c.word), vec(c.far)); near <= far {
			t.Errorf("%s is as close to %s (%.2f) as to %s (%.2f)", c.word, c.near, near, c.far, far)
		}
	}
	if wordVectorRow("qzxvbnm") >= 0 {
		t.Error("a non-word has a vector")
	}
}

// needsData skips a test of the embedded word vectors in a lean build,
// which carries none (see embedded_lean.go).
func needsData(t *testing.T) {
	t.Helper()
	if leanBuild {
		t.Skip("a lean build carries no word vectors")
	}
}

// lexical returns ix without meaning vectors: the lexical ranking alone.
func lexical(ix *Index) *Index {
	lex := *ix
	lex.meaning = nil
	return &lex
}

// fileTools all match "file"; one does what "read my essay" means.
var fileTools = []Document{
	{Name: "delete_file", Description: "Delete a file from the disk."},
	{Name: "move_file", Description: "Move a file to another folder."},
	{Name: "copy_file", Description: "Copy a file to another folder."},
	{Name: "file_dates", Description: "Get the dates of a file."},
	{Name: "zip_file", Description: "Compress a file into an archive."},
	{Name: "chmod_file", Description: "Change the permissions of a file."},
	{Name: "hash_file", Description: "Compute the checksum of a file."},
	{Name: "file_text", Description: "Extract the text of a Word file."},
}

func TestMeaningBringsUpTheToolForTheJob(t *testing.T) {
	needsData(t)
	ix := NewIndex(fileTools)
	rank := func(ix *Index) int {
		hits, _ := ix.Search(Request{Text: "read me my essay file", Limit: 8})
		for i, h := range hits {
			if fileTools[h.Doc].Name == "file_text" {
				return i
			}
		}
		return -1
	}
	with, without := rank(ix), rank(lexical(ix))
	if with < 0 || without < 0 || with >= without || with < lexicalHead {
		t.Errorf("file_text is at %d with meaning and %d without; want it higher with, and below the first %d", with, without, lexicalHead)
	}
}

func TestMeaningKeepsTheLexicalHeadAndTheHits(t *testing.T) {
	needsData(t)
	ix := NewIndex(fileTools)
	for _, q := range []string{"read me my essay file", "file", "move the file to the archive", "文件", "zzzz file"} {
		got, totalWith := ix.Search(Request{Text: q, Limit: 8})
		want, totalWithout := lexical(ix).Search(Request{Text: q, Limit: 8})
		if totalWith != totalWithout || len(got) != len(want) {
			t.Fatalf("%q: %d hits of %d with meaning, %d of %d without", q, len(got), totalWith, len(want), totalWithout)
		}
		docs := func(hs []Hit) []int {
			var out []int
			for _, h := range hs {
				out = append(out, h.Doc)
			}
			slices.Sort(out)
			return out
		}
		// The first places are the lexical ones; only ties may swap.
		head := min(lexicalHead, len(got))
		if !slices.Equal(docs(got[:head]), docs(want[:head])) {
			t.Errorf("%q: meaning changed the first places: %v, lexical %v", q, got[:head], want[:head])
		}
		for i := 1; i < head; i++ {
			if got[i].Score > got[i-1].Score*(1+tieTolerance) {
				t.Errorf("%q: a lower score before a higher one among the first places: %v", q, got[:head])
			}
		}
		if !slices.Equal(docs(got), docs(want)) {
			t.Errorf("%q: meaning changed which documents are hits", q)
		}
	}
}

func TestMeaningBreaksTies(t *testing.T) {
	needsData(t)
	docs := []Document{
		{Name: "sort_list", Description: "Sort a list of cars."},
		{Name: "sort_rows", Description: "Sort a list of fruit."},
	}
	ix := NewIndex(docs)
	lex, _ := lexical(ix).Search(Request{Text: "sort my apples and bananas", Limit: 2})
	if len(lex) != 2 || lex[0].Score != lex[1].Score {
		t.Fatalf("the two tools should tie lexically: %v", lex)
	}
	hits, _ := ix.Search(Request{Text: "sort my apples and bananas", Limit: 2})
	if len(hits) != 2 || hits[0].Doc != 1 {
		t.Errorf("the tie is not broken by meaning (fruit for apples and bananas): %v", hits)
	}
	if hits, _ := ix.Search(Request{Text: "sort my vehicles", Limit: 2}); len(hits) != 2 || hits[0].Doc != 0 {
		t.Errorf("the tie is not broken by meaning (cars for vehicles): %v", hits)
	}
}

func TestMeaningPagesAreSlicesOfOneOrder(t *testing.T) {
	needsData(t)
	var docs []Document
	for i := range 60 {
		docs = append(docs, Document{Name: fmt.Sprintf("file_tool_%d", i), Description: fmt.Sprintf("Does thing %d with a file and a document.", i)})
	}
	docs = append(docs, fileTools...)
	ix := NewIndex(docs)
	all, total := ix.Search(Request{Text: "read me my essay file", Limit: 50})
	var paged []Hit
	for off := 0; off < 50; off += 7 {
		page, tot := ix.Search(Request{Text: "read me my essay file", Offset: off, Limit: min(7, 50-off)})
		if tot != total {
			t.Fatalf("page at %d: total %d, want %d", off, tot, total)
		}
		paged = append(paged, page...)
	}
	if !slices.Equal(all, paged) {
		t.Errorf("pages do not join into the whole ranking:\n%v\n%v", paged, all)
	}
}

func TestMeaningOfChineseToolsComesFromTheirGloss(t *testing.T) {
	needsData(t)
	docs := []Document{
		{Name: "tianqi", Description: "获取城市的天气预报"}, // get a city's weather forecast
		{Name: "yinyue", Description: "播放音乐"},      // play music
	}
	ix := NewIndex(docs)
	if ix.meaning.scales[0] == 0 || ix.meaning.scales[1] == 0 {
		t.Fatal("a tool described in Chinese has no meaning vector")
	}
	q := ix.queryMeaning("will it rain in the city tomorrow")
	if weather, music := ix.similarity(q, 0), ix.similarity(q, 1); weather <= music {
		t.Errorf("rain is as close to the music tool (%.2f) as to the weather one (%.2f)", music, weather)
	}
}

func TestToolsWithoutMeaningAreNeitherRaisedNorSunk(t *testing.T) {
	needsData(t)
	docs := []Document{
		{Name: "weather_forecast", Description: "Get the weather forecast."},
		{Name: "play_music", Description: "Play a song."},
		{Name: "pogoda", Description: "Получить прогноз погоды."}, // no word with a vector
	}
	ix := NewIndex(docs)
	if ix.meaning.scales[2] != 0 {
		t.Fatal("the Russian-only tool has a meaning vector; the test needs one without")
	}
	q := ix.queryMeaning("weather tomorrow")
	got := ix.similarities(q, []Hit{{Doc: 0}, {Doc: 2}, {Doc: 1}})
	if mean := (got[0] + got[2]) / 2; math.Abs(got[1]-mean) > 1e-9 || got[0] <= got[2] {
		t.Errorf("similarities %v: want the vector-less tool at the mean %.3f of the others", got, mean)
	}
}
