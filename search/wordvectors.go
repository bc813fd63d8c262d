package search

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"io"
	"math"
	"sort"
	"strings"
	"sync"
)

// wordVectorsGz holds a meaning vector for each of the 50,000 most
// frequent English words: the Universal Sentence Encoder's embedding of
// the word (Google, Apache 2.0), reduced to 64 dimensions and 8-bit
// integers. internal/genvectors writes it and documents its format.
//
//go:embed wordvectors.gz
var wordVectorsGz []byte

// wordVectors is wordVectorsGz unpacked, on first use (~4 MB): the sorted
// words in one string, and each word's scale and values by its rank.
var wordVectors struct {
	once   sync.Once
	dims   int
	words  string   // the words, sorted, each followed by '\n'
	starts []uint32 // offset of each word in words
	scales []float32
	values []int8 // dims per word
}

func loadWordVectors() {
	zr, err := gzip.NewReader(bytes.NewReader(wordVectorsGz))
	if err != nil {
		return // cannot happen with the embedded file; no vectors then
	}
	data, err := io.ReadAll(zr)
	if err != nil || len(data) < 12 {
		return
	}
	le := binary.LittleEndian
	n, dims, blockLen := int(le.Uint32(data)), int(le.Uint32(data[4:])), int(le.Uint32(data[8:]))
	data = data[12:]
	if n <= 0 || dims <= 0 || len(data) != blockLen+n*4+n*dims {
		return
	}
	words := string(data[:blockLen])
	starts := lineStarts(words)
	if len(starts) != n || !strings.HasSuffix(words, "\n") {
		return
	}
	scales := make([]float32, n)
	for i := range scales {
		scales[i] = math.Float32frombits(le.Uint32(data[blockLen+i*4:]))
	}
	raw := data[blockLen+n*4:]
	values := make([]int8, len(raw))
	for i, b := range raw {
		values[i] = int8(b)
	}
	wordVectors.dims, wordVectors.words, wordVectors.starts = dims, words, starts
	wordVectors.scales, wordVectors.values = scales, values
}

// wordVectorDims is the length of a word vector; 0 when there are none.
func wordVectorDims() int {
	wordVectors.once.Do(loadWordVectors)
	return wordVectors.dims
}

// wordVectorRow is the row of word's vector (a lower-case word as Words
// returns it), -1 when it has none.
func wordVectorRow(word string) int32 {
	wordVectors.once.Do(loadWordVectors)
	words, starts := wordVectors.words, wordVectors.starts
	wordAt := func(i int) string {
		end := strings.IndexByte(words[starts[i]:], '\n')
		return words[starts[i] : int(starts[i])+end]
	}
	i := sort.Search(len(starts), func(i int) bool { return wordAt(i) >= word })
	if i < len(starts) && wordAt(i) == word {
		return int32(i)
	}
	return -1
}

// addWordVector adds weight times the vector in row (see wordVectorRow)
// to sum, which is wordVectorDims long.
func addWordVector(sum []float32, row int32, weight float32) {
	d := wordVectors.dims
	f := weight * wordVectors.scales[row]
	for k, q := range wordVectors.values[int(row)*d : int(row+1)*d] {
		sum[k] += f * float32(q)
	}
}

// englishStems are the stems of the words of text that are English words:
// those with a word vector (see wordVectorRow).
func englishStems(text string, stems *stemCache) map[string]bool {
	out := make(map[string]bool)
	for _, w := range Words(text) {
		if isASCIIWord(w) && wordVectorRow(w) >= 0 {
			out[stems.stem(w)] = true
		}
	}
	return out
}
