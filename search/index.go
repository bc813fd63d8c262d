package search

import (
	"container/heap"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Index is an immutable index over documents: BM25F (bm25f.go), the
// signals (signal.go) and the reranks (meaning.go, steps.go). It is safe
// for concurrent use.
type Index struct {
	n        int
	stems    *stemCache
	vocab    map[string]int32 // term -> id
	terms    []string         // id -> term
	byPrefix []int32          // term ids sorted by term, for prefix matches
	deletes  map[string][]int32
	postings [][]posting // by term id
	// postingFields are, parallel to postings, the fields each document
	// holds the term in: for explanations.
	postingFields [][]fieldSet
	// ownDF is, by term id, idf's document frequency (see countOwnDF).
	ownDF []float32
	// synonyms maps a stem to the stems of its synonyms: the lexicon's
	// thesaurus and the operator's groups (see Options).
	synonyms map[string][]string

	docNameWords  []string // per document: the words of its name, each followed by a space
	docParamWords []string // per document: the words of its parameter names, each followed by a space
	docDomain     []int32  // per document: its domain's id
	domainNames   []string // by domain id
	numDomains    int

	// signals are the Doc sides of the signals, in the order of signals.
	signals []signalDocs

	// meaning holds the documents' meaning vectors (see meaning.go); nil
	// when there are none.
	meaning *meanings

	scratch *sync.Pool // *scratch
}

// Options configure an index beyond its documents.
type Options struct {
	// Synonyms are more thesaurus groups, each in the lexicon's format (a
	// line of words that mean the same, see lexicon.go): an operator's
	// words for their own catalog. A word in several groups matches the
	// words of all of them.
	Synonyms []string
}

// NewIndex indexes docs; hits refer to documents by their position.
func NewIndex(docs []Document) *Index {
	return NewIndexWith(docs, Options{})
}

// NewIndexWith indexes docs with opts.
func NewIndexWith(docs []Document, opts Options) *Index {
	ix := &Index{
		n:             len(docs),
		vocab:         make(map[string]int32),
		synonyms:      lexiconSynonyms(),
		docNameWords:  make([]string, len(docs)),
		docParamWords: make([]string, len(docs)),
		docDomain:     make([]int32, len(docs)),
		scratch:       new(sync.Pool),
	}
	if len(opts.Synonyms) > 0 {
		ix.synonyms = withSynonymGroups(ix.synonyms, opts.Synonyms)
	}
	ix.signals = make([]signalDocs, len(signals))
	for i, s := range signals {
		ix.signals[i] = s.newDocs(len(docs))
	}
	analyses, stems := analyzeDocs(docs, ix.signals)
	dropBoilerplate(docs, analyses)
	ix.stems = stems
	docTerms := make([][numFields][]int32, len(docs))
	domains := make(map[string]int32)
	for i := range docs {
		a := &analyses[i]
		for f := range numFields {
			ids := make([]int32, len(a.terms[f]))
			for j, t := range a.terms[f] {
				ids[j] = ix.termID(t)
			}
			docTerms[i][f] = ids
		}
		ix.docNameWords[i] = a.nameWords
		ix.docParamWords[i] = a.paramWords
		d, ok := domains[docs[i].Domain]
		if !ok {
			d = int32(len(domains))
			domains[docs[i].Domain] = d
			ix.domainNames = append(ix.domainNames, docs[i].Domain)
		}
		ix.docDomain[i] = d
	}
	ix.numDomains = len(domains)
	ix.buildPostings(docTerms)
	for _, s := range ix.signals {
		if c, ok := s.(catalogSignalDocs); ok {
			c.finish(ix, docTerms)
		}
	}
	ix.byPrefix = make([]int32, len(ix.terms))
	for i := range ix.byPrefix {
		ix.byPrefix[i] = int32(i)
	}
	slices.SortFunc(ix.byPrefix, func(a, b int32) int { return strings.Compare(ix.terms[a], ix.terms[b]) })
	ix.deletes = make(map[string][]int32)
	for id, t := range ix.terms {
		if len(t) >= minFuzzyLen && isASCIIWord(t) {
			for _, d := range deletions(t) {
				ix.deletes[d] = append(ix.deletes[d], int32(id))
			}
		}
	}
	ix.stems.readOnly = true // buildMeanings reads it on several goroutines
	ix.meaning = ix.buildMeanings(docs)
	return ix
}

func (ix *Index) termID(t string) int32 {
	if id, ok := ix.vocab[t]; ok {
		return id
	}
	id := int32(len(ix.terms))
	ix.vocab[t] = id
	ix.terms = append(ix.terms, t)
	return id
}

// indexed reports whether the index holds a term.
func (ix *Index) indexed(term string) bool {
	_, ok := ix.vocab[term]
	return ok
}

// prefixStart is where in byPrefix the terms that begin with prefix
// start, if there are any.
func (ix *Index) prefixStart(prefix string) int {
	i, _ := slices.BinarySearchFunc(ix.byPrefix, prefix, func(id int32, p string) int { return strings.Compare(ix.terms[id], p) })
	return i
}

// hasTermWithPrefix reports whether the index holds a term that begins
// with prefix.
func (ix *Index) hasTermWithPrefix(prefix string) bool {
	i := ix.prefixStart(prefix)
	return i < len(ix.byPrefix) && strings.HasPrefix(ix.terms[ix.byPrefix[i]], prefix)
}

func distinct(ids []int32) []int32 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

// Len is the number of documents.
func (ix *Index) Len() int { return ix.n }

// Request is a search: the words to rank by, the words every hit must
// contain, which documents may be hits, and which page of hits to return.
type Request struct {
	Text     string
	Required []string
	Allow    func(doc int) bool // nil allows all
	Offset   int
	Limit    int
	// Explain asks for each hit's Explanation.
	Explain bool
}

// Hit is a ranked document.
type Hit struct {
	Doc int
	// Score is the document's lexical relevance to the text: BM25F and
	// the signals. Hits come in rank order, which is not always Score
	// order: meaning reorders the hits past the first few (see
	// rerankByMeaning), and for a request of several steps (see
	// searchSteps) Score is the one of the first ranking that found the
	// document. Explanation says which.
	Score float64
	// Coverage is the share of the query's words (stop words and request
	// phrasing aside) the document matches, 0 to 1: a best hit that covers
	// little of the query is a weak match.
	Coverage float64
	// Explanation says why the hit ranks where it does; only when the
	// request asks.
	Explanation *Explanation
}

// scratch holds one search's per-document sums; pooled, and cleared
// through seen after use.
type scratch struct {
	score []float64
	name  []float64 // weight of the query's words found in the name
	mask  []uint64  // which query words the document matches
	seen  []int32

	// The one query word's matches being scored (see scoreWord): per
	// document its best match and the sum of the others, nonzero only
	// for the documents in touched.
	wordBest, wordRest []float32
	touched            []int32

	// The documents that may be hits, and their scores as the signals
	// make them (see applySignals).
	cands      []int32
	candScores []float64
}

// activeTerm is an index term a query matches: its best weight and the
// query words (bits) it stands for.
type activeTerm struct {
	id     int32
	weight float64
	how    matchKind // how the word it is scored for matches it
	// nameWeight is what it adds to the share of a name the query spells
	// out: its weight, less for a place word (see placeWords).
	nameWeight float64
	// nameScale scales its frequency in documents whose name holds it:
	// less than 1 for a place word (see placeWords).
	nameScale float64
	bits      uint64
	// word is the query word it is scored for: the one it matches with
	// the greatest weight (the first of those).
	word int
}

// Search ranks the documents that match at least one query word (and all
// required ones) and that Allow accepts. A word matches a document that
// holds it (after stemming), or, discounted, a longer word it begins, or
// a word one typo away when it is not itself in the index (see match.go).
// The score is BM25F over the fields (a query word counting once however
// many ways it matches, see scoreWord), and then the signals' (see
// signal.go); past the first few places, closeness in meaning reorders
// the hits (see meaning.go). A request of several steps ("read the sheet,
// plot it, then save the chart") is also ranked step by step, and the
// rankings merged (see searchSteps). It returns the hits of the requested
// page, best first (ties in document order unless meaning tells them
// apart), and how many documents matched in all.
func (ix *Index) Search(req Request) (hits []Hit, total int) {
	// No page starts before the first hit or past the last document, and
	// none is longer than the catalog: so Offset+Limit cannot overflow.
	req.Offset = min(max(req.Offset, 0), ix.n)
	req.Limit = min(max(req.Limit, 0), ix.n)
	if steps := splitSteps(req.Text); len(steps) > 1 && !isOff("steps") {
		return ix.searchSteps(req, steps)
	}
	return ix.rank(req, false)
}

// rank is Search for one ranking of the whole text; wholeOfSteps says it
// is the whole of a request of several steps (see ranking).
func (ix *Index) rank(req Request, wholeOfSteps bool) (hits []Hit, total int) {
	read := ix.parse(req.Text, req.Required)
	if len(read.terms) == 0 {
		return nil, 0
	}
	sc, _ := ix.scratch.Get().(*scratch)
	if sc == nil || len(sc.score) != ix.n {
		sc = &scratch{
			score: make([]float64, ix.n), name: make([]float64, ix.n), mask: make([]uint64, ix.n),
			wordBest: make([]float32, ix.n), wordRest: make([]float32, ix.n),
		}
	}
	defer func() {
		for _, d := range sc.seen {
			sc.score[d], sc.name[d], sc.mask[d] = 0, 0, 0
		}
		sc.seen = sc.seen[:0]
		ix.scratch.Put(sc)
	}()
	active, requiredMask := activeTerms(read.terms)
	for _, word := range byWord(active) {
		ix.scoreWord(sc, word)
	}
	r := &ranking{ix: ix, text: req.Text, wholeOfSteps: wholeOfSteps, read: read, active: active, lex: sc}
	signals := r.signalQueries()
	h := &hitHeap{}
	want := req.Offset + req.Limit
	keep := want
	if want > 0 {
		// Meaning reorders the first meaningDepth hits, whatever the page.
		keep = max(want, meaningDepth)
	}
	cands := sc.cands[:0]
	for _, d := range sc.seen {
		if sc.mask[d]&requiredMask != requiredMask || (req.Allow != nil && !req.Allow(int(d))) {
			continue
		}
		total++
		if keep > 0 {
			cands = append(cands, d)
		}
	}
	scores := slices.Grow(sc.candScores[:0], len(cands))[:len(cands)]
	for i, d := range cands {
		scores[i] = sc.score[d]
	}
	applySignals(cands, scores, signals)
	sc.cands, sc.candScores = cands, scores
	for i, d := range cands {
		hit := Hit{Doc: int(d), Score: scores[i], Coverage: float64(bits.OnesCount64(sc.mask[d])) / float64(read.words)}
		if h.Len() < keep {
			heap.Push(h, hit)
		} else if better(hit, (*h)[0]) {
			(*h)[0] = hit
			heap.Fix(h, 0)
		}
	}
	hits = make([]Hit, h.Len())
	for i := len(hits) - 1; i >= 0; i-- {
		hits[i] = heap.Pop(h).(Hit)
	}
	if req.Explain {
		reading := r.explainReading(signals)
		for i := range hits {
			hits[i].Explanation = r.explain(int32(hits[i].Doc), signals, reading)
		}
	}
	ix.rerankByMeaning(hits, req.Text)
	if req.Offset >= len(hits) {
		return nil, total
	}
	return hits[req.Offset:min(len(hits), want)], total
}

// activeTerms are the index terms a request's words match, each once at
// the greatest weight a word gives it, and the bits of the required
// words.
func activeTerms(qterms []queryTerm) (active []activeTerm, requiredMask uint64) {
	where := make(map[int32]int) // term id -> index in active
	for qi, qt := range qterms {
		bit := uint64(1) << qi
		if qt.required {
			requiredMask |= bit
		}
		for _, m := range qt.matches {
			nameWeight := m.weight
			for _, f := range qt.nameFactors {
				nameWeight *= f
			}
			if i, ok := where[m.id]; ok {
				if m.weight > active[i].weight {
					active[i].weight, active[i].word, active[i].how = m.weight, qi, m.how
				}
				active[i].nameWeight = max(active[i].nameWeight, nameWeight)
				active[i].nameScale = max(active[i].nameScale, qt.nameScale)
				active[i].bits |= bit
				continue
			}
			where[m.id] = len(active)
			active = append(active, activeTerm{id: m.id, weight: m.weight, how: m.how, nameWeight: nameWeight, nameScale: qt.nameScale, bits: bit, word: qi})
		}
	}
	return active, requiredMask
}

// byWord groups active terms by the query word each is scored for, in
// the order of the words.
func byWord(active []activeTerm) [][]activeTerm {
	sorted := slices.Clone(active)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].word < sorted[j].word })
	var out [][]activeTerm
	for start := 0; start < len(sorted); {
		end := start + 1
		for end < len(sorted) && sorted[end].word == sorted[start].word {
			end++
		}
		out = append(out, sorted[start:end])
		start = end
	}
	return out
}

// better orders hits: higher score first, then lower document number.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Doc < b.Doc
}

// hitHeap is a min-heap of the best hits so far (worst on top).
type hitHeap []Hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
