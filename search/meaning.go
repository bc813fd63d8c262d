package search

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
)

// Meaning: a second opinion on the lexical ranking's near misses. Words
// say what a tool does only when the request uses the tool's own words;
// "read the file exchange.docx" wants a tool that "extracts all text from
// a Word document". Each tool and each query also get a meaning vector,
// the idf-weighted sum of their words' vectors (see wordVectors), and
// past the first lexicalHead places the lexical ranking's first
// meaningDepth hits are reordered by their lexical score (relative to the
// best hit's) plus meaningWeight times the cosine of the two vectors.
//
// The first places stay lexical: where a request names a tool's words the
// lexical ranking is the more precise (measured: letting meaning reorder
// them too cost short requests a first place as often as it gained one),
// while further down meaning brings up the tool that does the job in
// other words. Meaning only breaks their ties: first places whose scores
// are within tieTolerance of each other, which the words cannot tell
// apart ("take the password off contract.docx": protect_document and
// unprotect_document), go in the order of their closeness in meaning.
const (
	// lexicalHead is how many first places meaning never moves.
	lexicalHead = 3
	// meaningDepth is how many of the lexical ranking's hits meaning may
	// reorder.
	meaningDepth = 20
	// meaningWeight weighs the cosine against the relative lexical score.
	meaningWeight = 0.5
	// tieTolerance is how close, relative to the higher, two scores are
	// to count as a tie.
	tieTolerance = 0.005
	// meaningTextBytes bounds the description text a tool's vector is made
	// of: its opening says what the tool is for, the rest how to call it.
	meaningTextBytes = 400
)

// meanings are the documents' meaning vectors: dims int8 values per
// document with one scale each (0 for a document without one).
type meanings struct {
	dims    int
	vectors []int8
	scales  []float32
}

// buildMeanings gives each document its meaning vector, normalised and
// stored as int8 (see quantizeUnit), from its name, title, the opening of
// its description and their English gloss (see englishGloss). Documents
// with no known word get none; nil when there are no word vectors.
func (ix *Index) buildMeanings(docs []Document) *meanings {
	dims := wordVectorDims()
	if dims == 0 {
		return nil
	}
	m := &meanings{dims: dims, vectors: make([]int8, len(docs)*dims), scales: make([]float32, len(docs))}
	// Runs of documents on up to GOMAXPROCS goroutines, as in
	// analyzeDocs; wordWeight only reads the index.
	workers := max(1, min(runtime.GOMAXPROCS(0), len(docs)/minDocsPerWorker))
	var wg sync.WaitGroup
	for w := range workers {
		from, to := w*len(docs)/workers, (w+1)*len(docs)/workers
		wg.Go(func() { ix.buildMeaningsOf(m, docs, from, to) })
	}
	wg.Wait()
	return m
}

// buildMeaningsOf builds the meaning vectors of docs[from:to].
func (ix *Index) buildMeaningsOf(m *meanings, docs []Document, from, to int) {
	dims := m.dims
	// Each distinct word's vector row and weight, looked up once.
	type wordInfo struct {
		row    int32
		weight float32
	}
	seen := make(map[string]wordInfo)
	sum := make([]float32, dims)
	for i := from; i < to; i++ {
		clear(sum)
		text := docs[i].Description
		if len(text) > meaningTextBytes {
			text = text[:meaningTextBytes]
		}
		text = docs[i].Name + " " + docs[i].Title + " " + text
		text += " " + englishGloss(text) // Chinese tool text means its English
		found := false
		for _, w := range Words(text) {
			info, ok := seen[w]
			if !ok {
				info = wordInfo{row: wordVectorRow(w), weight: ix.wordWeight(w)}
				seen[w] = info
			}
			if info.row >= 0 && info.weight > 0 {
				addWordVector(sum, info.row, info.weight)
				found = true
			}
		}
		if found {
			m.scales[i] = quantizeUnit(sum, m.vectors[i*dims:(i+1)*dims])
		}
	}
}

// wordWeight is a word's weight in a meaning vector: the idf of its stem
// (an unindexed word counts as the rarest), 0 for a stop word.
func (ix *Index) wordWeight(w string) float32 {
	if isStopWord(w) {
		return 0
	}
	if id, ok := ix.vocab[ix.stems.stem(w)]; ok {
		return float32(ix.idf(id))
	}
	return float32(math.Log(1 + (float64(ix.n)+0.5)/0.5))
}

// quantizeUnit normalises v, stores it in q as int8 and returns the scale
// that maps q back (v/|v| ~ scale*q); 0 for a zero vector.
func quantizeUnit(v []float32, q []int8) float32 {
	var norm, peak float64
	for _, x := range v {
		norm += float64(x) * float64(x)
		peak = max(peak, math.Abs(float64(x)))
	}
	if norm == 0 {
		return 0
	}
	scale := peak / 127
	for k, x := range v {
		q[k] = int8(math.Round(float64(x) / scale))
	}
	return float32(scale / math.Sqrt(norm))
}

// queryMeaning is the normalised meaning vector of a query, nil when none
// of its words has a vector.
func (ix *Index) queryMeaning(text string) []float32 {
	if ix.meaning == nil {
		return nil
	}
	sum := make([]float32, ix.meaning.dims)
	found := false
	for _, w := range Words(text) {
		if row := wordVectorRow(w); row >= 0 {
			if weight := ix.wordWeight(w); weight > 0 {
				addWordVector(sum, row, weight)
				found = true
			}
		}
	}
	if !found {
		return nil
	}
	var norm float64
	for _, x := range sum {
		norm += float64(x) * float64(x)
	}
	for k := range sum {
		sum[k] /= float32(math.Sqrt(norm))
	}
	return sum
}

// similarity is the cosine of a query's meaning and a document's (0 for
// a document without one).
func (ix *Index) similarity(query []float32, doc int) float64 {
	m := ix.meaning
	d := m.dims
	var dot float32
	for k, q := range m.vectors[doc*d : (doc+1)*d] {
		dot += query[k] * float32(q)
	}
	return float64(dot * m.scales[doc])
}

// rerankByMeaning reorders hits, which are in lexical order:
// hits[lexicalHead:meaningDepth] by relative lexical score plus
// meaningWeight times their similarity to the query, and ties among the
// first lexicalHead by similarity alone. Hits with an explanation get a
// Move for it.
func (ix *Index) rerankByMeaning(hits []Hit, text string) {
	if len(hits) < 2 || hits[0].Score <= 0 || isOff("meaning") {
		return
	}
	query := ix.queryMeaning(text)
	if query == nil {
		return
	}
	explain := hits[0].Explanation != nil
	head := hits[:min(len(hits), lexicalHead)]
	for start := 0; start < len(head); {
		end := start + 1
		for end < len(head) && head[end].Score >= (1-tieTolerance)*head[start].Score {
			end++
		}
		if end-start > 1 {
			ties := head[start:end]
			similar := make(map[int]float64, len(ties))
			for _, h := range ties {
				similar[h.Doc] = ix.similarity(query, h.Doc)
			}
			from := placesOf(ties, start)
			sort.SliceStable(ties, func(i, j int) bool { return similar[ties[i].Doc] > similar[ties[j].Doc] })
			if explain {
				reason := fmt.Sprintf("places %d to %d tie on score (within %.1f%%): they go by closeness in meaning to the request", start+1, end, 100*tieTolerance)
				for i, h := range ties {
					h.Explanation.Moves = append(h.Explanation.Moves, Move{Rerank: "meaning", From: from[h.Doc], To: start + i + 1, Key: similar[h.Doc], Reason: reason})
				}
			}
		}
		start = end
	}
	if len(hits) <= lexicalHead+1 {
		return
	}
	tail := hits[lexicalHead:min(len(hits), meaningDepth)]
	similar := ix.similarities(query, tail)
	fused := make(map[int]float64, len(tail))
	sim := make(map[int]float64, len(tail))
	for i, h := range tail {
		fused[h.Doc] = h.Score/hits[0].Score + meaningWeight*similar[i]
		sim[h.Doc] = similar[i]
	}
	from := placesOf(tail, lexicalHead)
	sort.SliceStable(tail, func(i, j int) bool { return fused[tail[i].Doc] > fused[tail[j].Doc] })
	if explain {
		for i, h := range tail {
			h.Explanation.Moves = append(h.Explanation.Moves, Move{
				Rerank: "meaning", From: from[h.Doc], To: lexicalHead + i + 1, Key: fused[h.Doc],
				Reason: fmt.Sprintf("places %d to %d go by score relative to the first's (%.3f) plus %.1f × closeness in meaning to the request (%.3f)",
					lexicalHead+1, lexicalHead+len(tail), h.Score/hits[0].Score, meaningWeight, sim[h.Doc]),
			})
		}
	}
}

// placesOf maps the documents of hits to their places, from 1, where
// hits begin at offset.
func placesOf(hits []Hit, offset int) map[int]int {
	out := make(map[int]int, len(hits))
	for i, h := range hits {
		out[h.Doc] = offset + i + 1
	}
	return out
}

// similarities are the hits' similarities to the query. A document
// without a meaning vector (no word of it is known: text in a script the
// vectors do not cover) gets the mean of the others', neither raised nor
// sunk by what cannot be measured.
func (ix *Index) similarities(query []float32, hits []Hit) []float64 {
	out := make([]float64, len(hits))
	var sum float64
	known := 0
	for i, h := range hits {
		if ix.meaning.scales[h.Doc] != 0 {
			out[i] = ix.similarity(query, h.Doc)
			sum += out[i]
			known++
		}
	}
	for i, h := range hits {
		if ix.meaning.scales[h.Doc] == 0 && known > 0 {
			out[i] = sum / float64(known)
		}
	}
	return out
}
