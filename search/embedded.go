//go:build !mcpgateway_lean

package search

import (
	_ "embed"

	"github.com/klauspost/compress/zstd"
)

// The data the binary carries: 0.37 MB of word vectors, which every index
// reads (see meaning.go), and 1.27 MB of Chinese glossary, which only
// Chinese text reads (see glossary.go). A build with the tag
// mcpgateway_lean carries neither (see embedded_lean.go).

// cedictZst is a Chinese-English glossary derived from CC-CEDICT
// (https://cc-cedict.org, by MDBG, CC BY-SA 4.0): lines of
// "headword<TAB>English gloss", sorted by headword, compressed with
// Zstandard (zstd --ultra -22: 1.27 MB, where gzip -9 took 1.75 MB; the
// decoder, which a stripped Caddy does not link otherwise, costs 0.12
// MB of that back).
// tools/internal/gencedict writes it; see there for how.
//
//go:embed cedict.zst
var cedictZst []byte

// glossaryText is cedictZst unpacked; nil if it cannot be.
func glossaryText() []byte {
	zr, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil
	}
	defer zr.Close()
	data, err := zr.DecodeAll(cedictZst, nil)
	if err != nil {
		return nil
	}
	return data
}

// wordVectorsGz holds a meaning vector for each of the 50,000 most
// frequent English words: the Universal Sentence Encoder's embedding of
// the word (Google, Apache 2.0), reduced to its 16 principal directions
// and 4-bit integers. tools/internal/genvectors writes it and documents
// its format.
//
//go:embed wordvectors.gz
var wordVectorsGz []byte

// leanBuild says the binary carries no data.
const leanBuild = false
