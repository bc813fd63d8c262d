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
	n, dims, blockLen := int(le.Uint32(data)), int(le.Uint32(data[4:])), int(le.Uint32(data[8:]))
	if n != 4 || dims != 2 || len(data) != 12+blockLen+n*4+n*dims {
		t.Fatalf("header n=%d dims=%d block=%d for %d bytes", n, dims, blockLen, len(data))
	}
	sorted := strings.Split(strings.TrimSuffix(string(data[12:12+blockLen]), "\n"), "\n")
	if strings.Join(sorted, " ") != "apple kiwi mango zebra" {
		t.Fatalf("words %q, want them sorted", sorted)
	}
	read := func(i int) []float64 {
		scale := float64(math.Float32frombits(le.Uint32(data[12+blockLen+i*4:])))
		out := make([]float64, dims)
		for k := range out {
			out[k] = scale * float64(int8(data[12+blockLen+n*4+i*dims+k]))
		}
		return out
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
				got += read(a)[k] * read(b)[k]
			}
			if math.Abs(got-want) > 0.02 {
				t.Errorf("%s·%s = %.3f after reduction, %.3f before", wa, wb, got, want)
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
