// Command genvectors writes search/wordvectors.gz, the word vectors the
// search index uses to rerank near-misses by meaning (search/semantic.go).
// It reduces the Universal Sentence Encoder's 512-dimensional embeddings
// of the 50,000 most frequent English words (written by embed.mjs) to
// their first principal directions and 8-bit integers:
//
//	cd internal/genvectors && npm ci && node embed.mjs 50000 /tmp/vectors
//	go run ./internal/genvectors -in /tmp/vectors -out search/wordvectors.gz
//
// The projection is onto the top eigenvectors of the vectors' uncentred
// second-moment matrix, so dot products (and with them cosine
// similarities of sums of word vectors) keep as much of their value as
// the dimensions allow; centring lost ranking quality in measurement.
// Each word's reduced vector is stored as int8 with one float32 scale.
//
// Format (little-endian, gzipped): uint32 word count n, uint32 dimensions
// d, uint32 byte length of the word block; the word block, the words
// sorted and each followed by '\n'; n float32 scales; n*d int8 values,
// word by word in the same order.
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// sourceDims is the Universal Sentence Encoder's embedding size.
const sourceDims = 512

func main() {
	in := flag.String("in", ".", "directory with embed.mjs's words.json and vectors.f32")
	out := flag.String("out", "search/wordvectors.gz", "the file to write")
	dims := flag.Int("dims", 64, "dimensions to keep")
	flag.Parse()
	words, vectors, err := readEmbeddings(*in)
	if err != nil {
		log.Fatal(err)
	}
	basis, kept := principalDirections(vectors, *dims)
	reduced := project(vectors, basis)
	if err := write(*out, words, reduced); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d words, %d of %d dimensions (%.1f%% of the second moment kept) -> %s\n",
		len(words), *dims, sourceDims, 100*kept, *out)
}

// readEmbeddings reads embed.mjs's output.
func readEmbeddings(dir string) ([]string, [][]float64, error) {
	data, err := os.ReadFile(filepath.Join(dir, "words.json"))
	if err != nil {
		return nil, nil, err
	}
	var words []string
	if err := json.Unmarshal(data, &words); err != nil {
		return nil, nil, fmt.Errorf("words.json: %v", err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "vectors.f32"))
	if err != nil {
		return nil, nil, err
	}
	if len(raw) != len(words)*sourceDims*4 {
		return nil, nil, fmt.Errorf("vectors.f32 holds %d bytes, want %d words x %d float32", len(raw), len(words), sourceDims)
	}
	vectors := make([][]float64, len(words))
	for i := range words {
		v := make([]float64, sourceDims)
		for k := range v {
			v[k] = float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[(i*sourceDims+k)*4:])))
		}
		vectors[i] = v
	}
	return words, vectors, nil
}

// principalDirections returns the top dims eigenvectors (columns) of the
// vectors' uncentred second-moment matrix, and the share of its trace
// they hold.
func principalDirections(vectors [][]float64, dims int) (*mat.Dense, float64) {
	n, d := len(vectors), len(vectors[0])
	x := mat.NewDense(n, d, nil)
	for i, v := range vectors {
		x.SetRow(i, v)
	}
	moment := mat.NewSymDense(d, nil)
	moment.SymOuterK(1/float64(n), x.T())
	var eig mat.EigenSym
	if !eig.Factorize(moment, true) {
		log.Fatal("eigendecomposition failed")
	}
	var all mat.Dense
	eig.VectorsTo(&all)
	values := eig.Values(nil) // ascending
	basis := mat.NewDense(d, dims, nil)
	var total, kept float64
	for _, v := range values {
		total += v
	}
	for j := range dims {
		col := d - 1 - j
		kept += values[col]
		for k := range d {
			basis.Set(k, j, all.At(k, col))
		}
	}
	return basis, kept / total
}

// project maps each vector onto the basis.
func project(vectors [][]float64, basis *mat.Dense) [][]float64 {
	_, dims := basis.Dims()
	out := make([][]float64, len(vectors))
	for i, v := range vectors {
		var r mat.VecDense
		r.MulVec(basis.T(), mat.NewVecDense(len(v), v))
		o := make([]float64, dims)
		for j := range o {
			o[j] = r.AtVec(j)
		}
		out[i] = o
	}
	return out
}

// quantize returns v as int8 values and the scale that maps them back
// (v[k] ~ scale * q[k]).
func quantize(v []float64) ([]int8, float32) {
	peak := 0.0
	for _, x := range v {
		peak = max(peak, math.Abs(x))
	}
	q := make([]int8, len(v))
	if peak == 0 {
		return q, 0
	}
	scale := peak / 127
	for k, x := range v {
		q[k] = int8(math.Round(x / scale))
	}
	return q, float32(scale)
}

// write writes the words, sorted, and their quantized vectors in the
// format the package comment describes.
func write(path string, words []string, vectors [][]float64) error {
	order := make([]int, len(words))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return words[order[a]] < words[order[b]] })
	var block strings.Builder
	for _, i := range order {
		if strings.ContainsAny(words[i], "\n") || words[i] == "" {
			return fmt.Errorf("unusable word %q", words[i])
		}
		block.WriteString(words[i])
		block.WriteByte('\n')
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	w := bufio.NewWriter(zw)
	le := binary.LittleEndian
	binary.Write(w, le, uint32(len(words)))
	binary.Write(w, le, uint32(len(vectors[0])))
	binary.Write(w, le, uint32(block.Len()))
	w.WriteString(block.String())
	values := make([]int8, 0, len(words)*len(vectors[0]))
	for _, i := range order {
		q, scale := quantize(vectors[i])
		binary.Write(w, le, scale)
		values = append(values, q...)
	}
	binary.Write(w, le, values)
	if err := w.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}
