package search

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"math"
	"sort"
	"strings"
	"sync"
)

// wordVectors is wordVectorsGz unpacked, on first use (see
// wordVectorDims): the sorted words in one string, and each word's scale
// and values by its place among them.
var wordVectors struct {
	once   sync.Once
	dims   int
	words  string   // the words, sorted, each followed by '\n'
	starts []uint32 // offset of each word in words
	scales []float32
	values []byte // dims/2 per word: two signed 4-bit values a byte, the first in the low half
}

// wordVectorBits is the only size of value the format holds.
const wordVectorBits = 4

func loadWordVectors() {
	if isOff("word-vectors") {
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(wordVectorsGz))
	if err != nil {
		return // none embedded (see embedded_lean.go): no vectors then
	}
	data, err := io.ReadAll(zr)
	if err != nil || len(data) < 16 {
		return
	}
	le := binary.LittleEndian
	n, dims, bits, blockLen := int(le.Uint32(data)), int(le.Uint32(data[4:])), le.Uint32(data[8:]), int(le.Uint32(data[12:]))
	data = data[16:]
	if n <= 0 || dims <= 0 || dims%2 != 0 || bits != wordVectorBits || len(data) != blockLen+n+n*dims/2 {
		return
	}
	words, ok := frontDecoded(data[:blockLen], n)
	if !ok {
		return
	}
	scales := make([]float32, n)
	for i, code := range data[blockLen : blockLen+n] {
		if code != 0 {
			scales[i] = float32(math.Exp2((float64(code) - 256) / 16))
		}
	}
	wordVectors.dims, wordVectors.words, wordVectors.starts = dims, words, lineStarts(words)
	wordVectors.scales, wordVectors.values = scales, data[blockLen+n:]
}

// frontDecoded is a front-coded block of n sorted words (each the length
// of the prefix it shares with the one before, in a byte, the rest of it
// and '\n') as the words, each followed by '\n'.
func frontDecoded(block []byte, n int) (string, bool) {
	var b strings.Builder
	b.Grow(2 * len(block))
	prev := ""
	for i := 0; i < len(block); n-- {
		// The shared length is a byte, which may be '\n' itself.
		end := bytes.IndexByte(block[i+1:], '\n') + 1
		shared := int(block[i])
		if end < 1 || shared > len(prev) {
			return "", false
		}
		start := b.Len()
		b.WriteString(prev[:shared])
		b.Write(block[i+1 : i+end])
		b.WriteByte('\n')
		prev = b.String()[start : b.Len()-1]
		i += end + 1
	}
	return b.String(), n == 0
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
	half := wordVectors.dims / 2
	f := weight * wordVectors.scales[row]
	for k, b := range wordVectors.values[int(row)*half : int(row+1)*half] {
		sum[2*k] += f * float32(int8(b<<4)>>4)
		sum[2*k+1] += f * float32(int8(b)>>4)
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
