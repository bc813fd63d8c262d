package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReducesAndWritesTheFormat runs the whole generator on vectors that
// lie in a two-dimensional subspace of 512: two dimensions keep all of
// their dot products (up to 8-bit rounding), and the file reads back in
// the documented format with the words sorted.
func TestReducesAndWritesTheFormat(t *testing.T) {
	dir := t.TempDir()
	words := []string{"zebra", "apple", "mango", "kiwi"}
	coords := [][2]float64{{1, 0}, {0, 1}, {0.6, 0.8}, {-0.5, 0.5}}
	u, v := make([]float64, sourceDims), make([]float64, sourceDims)
	for k := range sourceDims { // two orthonormal directions
		u[k] = 1 / math.Sqrt(sourceDims)
		if k%2 == 0 {
			v[k] = 1 / math.Sqrt(sourceDims)
		} else {
			v[k] = -1 / math.Sqrt(sourceDims)
		}
	}
	raw := make([]byte, 0, len(words)*sourceDims*4)
	full := make([][]float64, len(words))
	for i, c := range coords {
		full[i] = make([]float64, sourceDims)
		for k := range sourceDims {
			full[i][k] = c[0]*u[k] + c[1]*v[k]
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(full[i][k])))
		}
	}
	wordsJSON, _ := json.Marshal(words)
	os.WriteFile(filepath.Join(dir, "words.json"), wordsJSON, 0o644)
	os.WriteFile(filepath.Join(dir, "vectors.f32"), raw, 0o644)

	gotWords, vectors, err := readEmbeddings(dir)
	if err != nil {
		t.Fatal(err)
	}
	basis, kept := principalDirections(vectors, 2)
	if kept < 0.999 {
		t.Errorf("two directions keep %.3f of a rank-two set", kept)
	}
	out := filepath.Join(dir, "wordvectors.gz")
	if err := write(out, gotWords, project(vectors, basis)); err != nil {
		t.Fatal(err)
	}

	f, _ := os.ReadFile(out)
	zr, err := gzip.NewReader(bytes.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(zr)
	le := binary.LittleEndian
	n, dims, bits, blockLen := int(le.Uint32(data)), int(le.Uint32(data[4:])), le.Uint32(data[8:]), int(le.Uint32(data[12:]))
	if n != 4 || dims != 2 || bits != 4 || len(data) != 16+blockLen+n+n*dims/2 {
		t.Fatalf("header n=%d dims=%d bits=%d block=%d for %d bytes", n, dims, bits, blockLen, len(data))
	}
	sorted, vectors, err := readWritten(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(sorted, " ") != "apple kiwi mango zebra" {
		t.Fatalf("words %q, want them sorted", sorted)
	}
	index := map[string]int{}
	for i, w := range words {
		index[w] = i
	}
	for a, wa := range sorted {
		for b, wb := range sorted {
			var want, got float64
			for k := range sourceDims {
				want += full[index[wa]][k] * full[index[wb]][k]
			}
			for k := range dims {
				got += vectors[a][k] * vectors[b][k]
			}
			// 4-bit values: a tenth of a unit dot product.
			if math.Abs(got-want) > 0.1 {
				t.Errorf("%s·%s = %.3f after reduction, %.3f before", wa, wb, got, want)
			}
		}
	}
}

// Reducing a file to fewer dimensions keeps its words and the first
// dimensions of each vector; words that share long prefixes survive the
// front coding (a shared length of 10 is a newline byte).
func TestReducesAWrittenFile(t *testing.T) {
	dir := t.TempDir()
	words := []string{"internationalisation", "understanding", "internationalism", "understand", "a"}
	vectors := make([][]float64, len(words))
	for i := range vectors {
		vectors[i] = []float64{0.5, -0.25, float64(i) / 10, 0.125}
	}
	four := filepath.Join(dir, "four.gz")
	if err := write(four, words, vectors); err != nil {
		t.Fatal(err)
	}
	got, read, err := readWritten(four)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "a internationalisation internationalism understand understanding" {
		t.Fatalf("words %q", got)
	}
	for i, w := range got {
		j := slices.Index(words, w)
		for k := range 4 {
			if math.Abs(read[i][k]-vectors[j][k]) > 0.06 {
				t.Errorf("%s[%d] = %.3f, want %.3f", w, k, read[i][k], vectors[j][k])
			}
		}
	}
}

func TestReadEmbeddingsRejectsAMismatch(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "words.json"), []byte(`["a","b"]`), 0o644)
	os.WriteFile(filepath.Join(dir, "vectors.f32"), make([]byte, sourceDims*4), 0o644)
	if _, _, err := readEmbeddings(dir); err == nil || !strings.Contains(err.Error(), "want 2 words") {
		t.Errorf("one vector for two words: %v", err)
	}
}

// mostFrequent keeps only the words among the first top of the frequency
// list, each with its own vector, and says what is wrong with a missing
// list.
func TestKeepsTheMostFrequentWords(t *testing.T) {
	dir := t.TempDir()
	frequency := filepath.Join(dir, "words.json")
	if err := os.WriteFile(frequency, []byte(`["the","of","cat","zebra","aardvark"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	words := []string{"aardvark", "cat", "of", "the", "zebra"}
	vectors := [][]float64{{1}, {2}, {3}, {4}, {5}}
	got, kept, err := mostFrequent(words, vectors, frequency, 3)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "cat of the" || kept[0][0] != 2 || kept[1][0] != 3 || kept[2][0] != 4 {
		t.Fatalf("kept %q %v, want cat of the with their own vectors", got, kept)
	}
	if _, _, err := mostFrequent(words, vectors, filepath.Join(dir, "absent.json"), 3); err == nil || !strings.Contains(err.Error(), "-frequency") {
		t.Fatalf("a missing list: %v, want an error naming -frequency", err)
	}
}
