//go:build !mcpgateway_lean

package search

import _ "embed"

// The data the binary carries: 0.37 MB of word vectors, which every index
// reads (see meaning.go). A build with the tag mcpgateway_lean carries
// none (see embedded_lean.go). The Chinese glossary is a package of its
// own, linked only by the builds that import it (see UseGlossary and
// search/cedict).

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
