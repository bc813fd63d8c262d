// Command genvectors writes search/wordvectors.gz, the word vectors the
// search index uses to rerank near-misses by meaning (search/meaning.go).
// It reduces the Universal Sentence Encoder's 512-dimensional embeddings
// of the 50,000 most frequent English words (written by embed.mjs) to
// their first principal directions and 4-bit integers:
//
//	cd internal/genvectors && npm ci && node embed.mjs 50000 /tmp/vectors
//	go run ./internal/genvectors -in /tmp/vectors -out search/wordvectors.gz
//
// The projection is onto the top eigenvectors of the vectors' uncentred
// second-moment matrix, so dot products (and with them cosine
// similarities of sums of word vectors) keep as much of their value as
// the dimensions allow; centring lost ranking quality in measurement.
// Measured on LiveMCPBench's request sets, 8 dimensions of 4 bits rank as
// 64 of 8 bits did (calib Hit@1 and Hit@3 within 0.1 point) in a tenth of
// the bytes. With -from, it reduces a file it wrote before (of more
// dimensions or bits) instead of embedding again: its dimensions are
// principal directions already, the first the largest. With -top and
// -frequency (embed.mjs's words.json, the words in frequency order), it
// keeps only the vectors of the most frequent words (docs/search.md has
// what 10,000 to 30,000 cost: each lowered a catalog by a request).
//
// Format (little-endian, gzipped): uint32 word count n, uint32 dimensions
// d (even), uint32 bits per value (4), uint32 byte length of the word
// block; the word block, the words sorted, each as the length of the
// prefix it shares with the word before (one byte), the rest of it and
// '\n'; n scale codes, one byte each, scale = 2^((code-256)/16), 0 for a
// zero vector; n*d/2 bytes of values, word by word in the same order, two
// signed 4-bit values a byte, the first in the low half: a value is scale
// × the signed integer.
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
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
	dims := flag.Int("dims", 8, "dimensions to keep (even)")
	from := flag.String("from", "", "reduce this wordvectors.gz instead of embed.mjs's output")
	top := flag.Int("top", 0, "with -from and -frequency: keep only the vectors of this many most frequent words")
	frequency := flag.String("frequency", "", "with -top: embed.mjs's words.json, the words in frequency order")
	flag.Parse()
	if *dims < 2 || *dims%2 != 0 {
		log.Fatal("-dims takes an even number of 2 or more")
	}
	if *from != "" {
		words, vectors, err := readWritten(*from)
		if err != nil {
			log.Fatal(err)
		}
		if len(vectors[0]) < *dims {
			log.Fatalf("%s has %d dimensions, fewer than %d", *from, len(vectors[0]), *dims)
		}
		for i := range vectors {
			vectors[i] = vectors[i][:*dims]
		}
		if *top > 0 {
			words, vectors, err = mostFrequent(words, vectors, *frequency, *top)
			if err != nil {
				log.Fatal(err)
			}
		}
		if err := write(*out, words, vectors); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d words, the first %d dimensions of %s -> %s\n", len(words), *dims, *from, *out)
		return
	}
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

// readWritten reads a file write wrote (see the package comment), or one
// of the format before it: 8-bit values and float32 scales, the words
// whole ("uint32 n, d, word block length; the words each followed by
// '\n'; n float32 scales; n*d int8 values").
func readWritten(path string) ([]string, [][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, nil, err
	}
	le := binary.LittleEndian
	if len(data) < 16 {
		return nil, nil, fmt.Errorf("%s: too short", path)
	}
	n, dims := int(le.Uint32(data)), int(le.Uint32(data[4:]))
	if bits := le.Uint32(data[8:]); bits == 4 {
		blockLen := int(le.Uint32(data[12:]))
		words := frontDecoded(data[16 : 16+blockLen])
		codes := data[16+blockLen : 16+blockLen+n]
		packed := data[16+blockLen+n:]
		vectors := make([][]float64, n)
		for i := range vectors {
			vectors[i] = make([]float64, dims)
			scale := scaleOf(codes[i])
			for k := range dims {
				vectors[i][k] = scale * float64(nibble(packed, i*dims+k))
			}
		}
		return words, vectors, nil
	}
	blockLen := int(le.Uint32(data[8:]))
	data = data[12:]
	words := strings.Split(strings.TrimSuffix(string(data[:blockLen]), "\n"), "\n")
	vectors := make([][]float64, n)
	for i := range vectors {
		scale := float64(math.Float32frombits(le.Uint32(data[blockLen+i*4:])))
		vectors[i] = make([]float64, dims)
		for k := range dims {
			vectors[i][k] = scale * float64(int8(data[blockLen+n*4+i*dims+k]))
		}
	}
	return words, vectors, nil
}

// mostFrequent keeps the words (and their vectors) that are among the
// first top words of the frequency-ordered list in the JSON file at path
// (embed.mjs's words.json).
func mostFrequent(words []string, vectors [][]float64, path string, top int) ([]string, [][]float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("-top needs -frequency: %v", err)
	}
	var ordered []string
	if err := json.Unmarshal(data, &ordered); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	keep := make(map[string]bool, top)
	for _, w := range ordered[:min(top, len(ordered))] {
		keep[w] = true
	}
	var keptWords []string
	var keptVectors [][]float64
	for i, w := range words {
		if keep[w] {
			keptWords = append(keptWords, w)
			keptVectors = append(keptVectors, vectors[i])
		}
	}
	return keptWords, keptVectors, nil
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

// maxNibble is the largest magnitude of a signed 4-bit value kept.
const maxNibble = 7

// quantize returns v as signed 4-bit values and the code of the scale
// that maps them back (v[k] ~ scaleOf(code) * q[k]).
func quantize(v []float64) ([]int8, byte) {
	peak := 0.0
	for _, x := range v {
		peak = max(peak, math.Abs(x))
	}
	q := make([]int8, len(v))
	if peak == 0 {
		return q, 0
	}
	code := byte(min(max(math.Round(math.Log2(peak/maxNibble)*16)+256, 1), 255))
	scale := scaleOf(code)
	for k, x := range v {
		q[k] = int8(min(max(math.Round(x/scale), -8), 7))
	}
	return q, code
}

// scaleOf is the scale a code stands for.
func scaleOf(code byte) float64 {
	if code == 0 {
		return 0
	}
	return math.Exp2((float64(code) - 256) / 16)
}

// nibble is the i-th signed 4-bit value of packed.
func nibble(packed []byte, i int) int8 {
	b := packed[i/2]
	if i%2 == 1 {
		b >>= 4
	}
	return int8(b<<4) >> 4
}

// frontDecoded reads a front-coded word block.
func frontDecoded(block []byte) []string {
	var words []string
	prev := ""
	for i := 0; i < len(block); {
		shared := int(block[i])
		end := i + 1 // the shared length may be '\n' itself
		for block[end] != '\n' {
			end++
		}
		w := prev[:shared] + string(block[i+1:end])
		words = append(words, w)
		prev, i = w, end+1
	}
	return words
}

// write writes the words, sorted, and their quantized vectors in the
// format the package comment describes.
func write(path string, words []string, vectors [][]float64) error {
	dims := len(vectors[0])
	if dims%2 != 0 {
		return fmt.Errorf("%d dimensions: the format packs two a byte", dims)
	}
	order := make([]int, len(words))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return words[order[a]] < words[order[b]] })
	var block []byte
	prev := ""
	for _, i := range order {
		w := words[i]
		if strings.ContainsAny(w, "\n") || w == "" {
			return fmt.Errorf("unusable word %q", w)
		}
		shared := 0
		for shared < min(len(w), len(prev), 255) && w[shared] == prev[shared] {
			shared++
		}
		block = append(block, byte(shared))
		block = append(block, w[shared:]...)
		block = append(block, '\n')
		prev = w
	}
	codes := make([]byte, 0, len(words))
	packed := make([]byte, 0, len(words)*dims/2)
	for _, i := range order {
		q, code := quantize(vectors[i])
		codes = append(codes, code)
		for k := 0; k < dims; k += 2 {
			packed = append(packed, byte(q[k])&0x0f|byte(q[k+1])<<4)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	w := bufio.NewWriter(zw)
	le := binary.LittleEndian
	for _, v := range []uint32{uint32(len(words)), uint32(dims), 4, uint32(len(block))} {
		binary.Write(w, le, v)
	}
	w.Write(block)
	w.Write(codes)
	w.Write(packed)
	if err := w.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}
