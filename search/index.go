package search

import (
	"cmp"
	"container/heap"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
)

// Document is one searchable item (a tool), field by field. Fields weigh
// differently: a query word in the name says more than one in a parameter
// description.
type Document struct {
	Name        string
	Title       string
	Description string
	// Params holds parameter names and their descriptions.
	Params string
	// ParamNames holds the parameter names alone: identifiers that, like
	// the tool's name, say what it works on ("city", "bold", "start_date").
	ParamNames        string
	Domain            string // the domain's name
	DomainDescription string
	Group             string
}

type field int

const (
	fieldName field = iota
	fieldTitle
	fieldDescription
	fieldParams
	fieldDomain
	fieldDomainDescription
	fieldGroup
	fieldParamNames
	// fieldGloss is the English gloss of the Chinese in the title and
	// description (see englishGloss), derived by the index.
	fieldGloss
	numFields
)

func (d *Document) field(f field) string {
	switch f {
	case fieldName:
		return d.Name
	case fieldTitle:
		return d.Title
	case fieldDescription:
		return d.Description
	case fieldParams:
		return d.Params
	case fieldDomain:
		return d.Domain
	case fieldDomainDescription:
		return d.DomainDescription
	case fieldGroup:
		return d.Group
	case fieldParamNames:
		return d.ParamNames
	}
	return ""
}

// Ranking parameters: BM25F field weights and length normalisation, and
// the weights of the bonuses and of fuzzy matches.
var (
	fieldWeight = [numFields]float64{
		fieldName:              3,
		fieldTitle:             2,
		fieldDescription:       1,
		fieldParams:            0.45,
		fieldDomain:            1,
		fieldDomainDescription: 1,
		fieldGroup:             0.3,
		fieldParamNames:        0.6,
		fieldGloss:             0.6,
	}
	fieldLengthNorm = [numFields]float64{
		fieldName:              0.3,
		fieldTitle:             0.3,
		fieldDescription:       0.75,
		fieldParams:            0.75,
		fieldDomain:            0,
		fieldDomainDescription: 0.5,
		fieldGroup:             0,
		fieldParamNames:        0.5,
		fieldGloss:             0.75,
	}
)

const (
	k1 = 1.2
	// nameCoverageBonus rewards a tool whose name the query spells out:
	// it is scaled by the share of the name's words the query holds.
	nameCoverageBonus = 3.0
	// domainBonus rewards the tools of a domain the query names, scaled
	// by how distinctive the word is among domain names.
	domainBonus = 3.0
	// domainRelevance adds to each tool this share of how well its whole
	// domain (all its tools' text together) matches the query, relative
	// to the best domain: a request about one service's subject favours
	// that service's tools.
	domainRelevance = 2.0
	// prefixWeight discounts a query word that matches only as a prefix
	// ("repo" for "repositori") or by an indexed prefix of it ("charger"
	// for "charg"); indexedPrefixWeight does the same for a word that is
	// itself indexed, whose prefix matches are likelier to be noise.
	prefixWeight        = 0.6
	indexedPrefixWeight = 0.5
	// typoWeight discounts a word not in the index that matches an
	// indexed word one typo away.
	typoWeight = 0.6
	// glossQueryWeight discounts the words of a Chinese query's English
	// gloss.
	glossQueryWeight = 0.5
	// locatorWeight weighs the words for what a query's paths and URLs
	// point at (see splitLocators); discounting them lost more than it
	// gained. payloadWeight weighs the words that name the file or site,
	// and quoted text: what to act on rather than what to do.
	locatorWeight = 1.0
	payloadWeight = 0.5
	// dirWeight weighs the words of the directories a query's paths name
	// their files and folders in ("home sam projects" of
	// "/home/sam/projects/blog/assets"; see splitLocators). Chosen on
	// calib among 0.05 to 0.35: 0.1 and 0.15 measure the same, and beat
	// payloadWeight by Hit@1 +12 (read) and +8 -1 (unread).
	dirWeight = 0.15
	// compoundWeight weighs the compounds of a query's adjacent words
	// (see joinedWords); at full weight they cost more than they gained.
	compoundWeight = 0.5
	// placeNameWeight weighs a place word of the query (see placeWords)
	// in the share of a name the query spells out, and placeNameScale its
	// frequency in names: "add a rectangle on slide 2" is no request for
	// a tool about slides (apply_slide_template). Measured on the
	// calibration requests: 0.4 gained most first and third places; 0.3
	// lost as many first places as it gained.
	placeNameWeight = 0.5
	placeNameScale  = 0.4
	// brandPartWeight weighs the parts of a brand word the query holds
	// whole ("git" and "hub" of "GitHub", see joinBrandWords).
	brandPartWeight = 0.5
	// expansionShare is how much of its score a document keeps for each
	// index term a query word matches besides its best one (see
	// scoreWord): a word counts once, however many of its synonyms,
	// prefixes and spellings a tool's text holds.
	expansionShare = 0.5
	// minFuzzyLen is the shortest query word matched fuzzily.
	minFuzzyLen = 4
	// maxExpansions bounds the index words one query word may stand for.
	maxExpansions = 12
)

const (
	// maxQueryTerms bounds the distinct words of a query that count.
	maxQueryTerms = 64
)

type posting struct {
	doc int32
	// tf is the field-weighted, length-normalised term frequency; it is
	// negated when the term is also a word of the document's name.
	tf float32
}

// Index is an immutable BM25F index over documents with a few bonuses
// (see Search). It is safe for concurrent use.
type Index struct {
	n        int
	stems    *stemCache
	vocab    map[string]int32 // term -> id
	terms    []string         // id -> term
	byPrefix []int32          // term ids sorted by term, for prefix matches
	deletes  map[string][]int32
	postings [][]posting // by term id

	// domainPostings index each domain as one document: all its tools'
	// text together.
	domainPostings map[int32][]posting

	docNameLen    []uint8           // per document: distinct terms in its name (at most 255)
	docNameWords  []string          // per document: the words of its name, each followed by a space
	docParamWords []string          // per document: the words of its parameter names, each followed by a space
	docInputWords []string          // per document: what it takes and does not say it gives (see inputWords)
	docIntent     []intent          // per document: whether it reads or changes (see toolIntent)
	docEffect     []effect          // per document: whether it does or undoes (see toolEffect)
	docLists      []bool            // per document: whether it lists (see listingTool)
	docMakes      []bool            // per document: whether it makes a new thing (see makesNew)
	docDomain     []int32           // per document: its domain's id
	domainsByTerm map[int32][]int32 // the domains whose names hold a term
	numDomains    int

	// Meaning vectors (see meaning.go), meaningDims int8 values per
	// document with one scale each; none when meaningDims is 0.
	meaningDims   int
	meanings      []int8
	meaningScales []float32

	scratch sync.Pool // *scratch
}

// NewIndex indexes docs; hits refer to documents by their position.
func NewIndex(docs []Document) *Index {
	ix := &Index{
		n:             len(docs),
		vocab:         make(map[string]int32),
		docNameLen:    make([]uint8, len(docs)),
		docNameWords:  make([]string, len(docs)),
		docParamWords: make([]string, len(docs)),
		docInputWords: make([]string, len(docs)),
		docIntent:     make([]intent, len(docs)),
		docEffect:     make([]effect, len(docs)),
		docLists:      make([]bool, len(docs)),
		docMakes:      make([]bool, len(docs)),
		docDomain:     make([]int32, len(docs)),
		domainsByTerm: make(map[int32][]int32),
	}
	analyses, stems := analyzeDocs(docs)
	dropBoilerplate(docs, analyses)
	ix.stems = stems
	docTerms := make([][numFields][]int32, len(docs))
	var totalLen, withField [numFields]float64
	domains := make(map[string]int32)
	for i := range docs {
		a := &analyses[i]
		for f := range numFields {
			ids := make([]int32, len(a.terms[f]))
			for j, t := range a.terms[f] {
				ids[j] = ix.termID(t)
			}
			docTerms[i][f] = ids
			totalLen[f] += float64(len(ids))
			if len(ids) > 0 {
				withField[f]++
			}
		}
		ix.docIntent[i] = a.intent
		ix.docEffect[i] = a.effect
		ix.docLists[i] = a.lists
		ix.docMakes[i] = a.makes
		ix.docNameLen[i] = uint8(min(len(distinct(docTerms[i][fieldName])), 255))
		ix.docNameWords[i] = a.nameWords
		ix.docParamWords[i] = a.paramWords
		ix.docInputWords[i] = a.inputWords
		d, ok := domains[docs[i].Domain]
		if !ok {
			d = int32(len(domains))
			domains[docs[i].Domain] = d
			for _, t := range distinct(docTerms[i][fieldDomain]) {
				ix.domainsByTerm[t] = append(ix.domainsByTerm[t], d)
			}
		}
		ix.docDomain[i] = d
	}
	ix.numDomains = len(domains)
	// A field's average length is over the documents that have it: most
	// tools have no title and few a Chinese description, and averaging
	// over all would make every title and gloss look long.
	var avgLen [numFields]float64
	for f := range numFields {
		avgLen[f] = max(totalLen[f]/max(withField[f], 1), 1)
	}
	ix.postings = make([][]posting, len(ix.terms))
	domainTF := make([]map[int32]float64, len(domains))
	domainLen := make([]float64, len(domains))
	for i := range docs {
		d := ix.docDomain[i]
		if domainTF[d] == nil {
			domainTF[d] = make(map[int32]float64)
		}
		for f := range numFields {
			if f == fieldDomain || f == fieldDomainDescription {
				continue
			}
			for _, id := range docTerms[i][f] {
				domainTF[d][id] += fieldWeight[f]
				domainLen[d] += fieldWeight[f]
			}
		}
	}
	ix.domainPostings = make(map[int32][]posting)
	var avgDomainLen float64
	for _, l := range domainLen {
		avgDomainLen += l / float64(max(len(domainLen), 1))
	}
	for d, m := range domainTF {
		for id, v := range m {
			norm := 1 - 0.75 + 0.75*domainLen[d]/max(avgDomainLen, 1)
			ix.domainPostings[id] = append(ix.domainPostings[id], posting{doc: int32(d), tf: float32(v / norm)})
		}
	}
	// One document at a time, its weighted term frequencies by term id
	// (tf, nonzero for the ids in touched); appended in document order,
	// each term's postings come sorted by document.
	tf := make([]float64, len(ix.terms))
	var touched []int32
	for i := range docs {
		touched = touched[:0]
		for f := range numFields {
			ids := docTerms[i][f]
			if len(ids) == 0 {
				continue
			}
			norm := 1 - fieldLengthNorm[f] + fieldLengthNorm[f]*float64(len(ids))/avgLen[f]
			for _, id := range ids {
				if tf[id] == 0 {
					touched = append(touched, id)
				}
				tf[id] += fieldWeight[f] / norm
			}
		}
		for _, id := range touched {
			v := tf[id]
			tf[id] = 0
			if slices.Contains(docTerms[i][fieldName], id) {
				v = -v
			}
			ix.postings[id] = append(ix.postings[id], posting{doc: int32(i), tf: float32(v)})
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
	ix.buildMeanings(docs)
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
}

// Hit is a ranked document.
type Hit struct {
	Doc int
	// Score is the document's lexical relevance to the text. Hits come in
	// rank order, which is not always Score order: meaning reorders the
	// hits past the first few (see rerankByMeaning), and for a request of
	// several steps (see searchSteps) Score is the one of the first
	// ranking that found the document.
	Score float64
	// Coverage is the share of the query's words (stop words and request
	// phrasing aside) the document matches, 0 to 1: a best hit that covers
	// little of the query is a weak match.
	Coverage float64
}

// queryTerm is one word of a query with the index terms it matches.
type queryTerm struct {
	required bool
	place    bool // the query names the place of its action with it
	state    bool // the query says with it what state a thing is in (see openAsState)
	matches  []termMatch
}

type termMatch struct {
	id     int32
	weight float64
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

	// The documents named for many of what the query names one of (see
	// markOtherForms): true for those in otherForms.
	otherForm  []bool
	otherForms []int32
}

// activeTerm is an index term a query matches: its best weight and the
// query words (bits) it stands for.
type activeTerm struct {
	id     int32
	weight float64
	// nameWeight is what it adds to the share of a name the query spells
	// out: its weight, less for a place word (see placeWords).
	nameWeight float64
	// nameScale scales its frequency in documents whose name holds it:
	// less than 1 for a place word (see placeWords) and a word that says
	// a state (see openAsState).
	nameScale float64
	bits      uint64
	// word is the query word it is scored for: the one it matches with
	// the greatest weight (the first of those).
	word int
}

// Search ranks the documents that match at least one query word (and all
// required ones) and that Allow accepts. A word matches a document that
// holds it (after stemming), or, discounted, a longer word it begins, or
// a word one typo away when it is not itself in the index. The score is
// BM25F over the fields (a query word counting once however many ways it
// matches, see scoreWord), plus a bonus for the share of a tool's name the
// query spells out and one for naming the tool's domain; past the first
// few places, closeness in meaning reorders the hits (see meaning.go). A
// request of several steps ("read the sheet, plot it, then save the
// chart") is also ranked step by step, and the rankings merged (see
// searchSteps). It returns the hits of the requested page, best first
// (ties in document order unless meaning tells them apart), and how many
// documents matched in all.
func (ix *Index) Search(req Request) (hits []Hit, total int) {
	if steps := splitSteps(req.Text); len(steps) > 1 {
		return ix.searchSteps(req, steps)
	}
	return ix.rank(req, requestIntent(req.Text), requestEffect(req.Text))
}

// rank is Search for one ranking of the whole text; tools of the other
// kind than asked (see intent.go), tools that undo what is wanted (see
// effect.go) and tools named for many of what the text names one of (see
// numbered.go) or that take what the text asks to be told (see
// askedfor.go) score less, and tools that take how many to return score
// more when the text counts what it wants (see counted.go).
func (ix *Index) rank(req Request, asked intent, wanted effect) (hits []Hit, total int) {
	qterms, words, namesFile := ix.parse(req.Text, req.Required)
	if len(qterms) == 0 {
		return nil, 0
	}
	sc, _ := ix.scratch.Get().(*scratch)
	if sc == nil || len(sc.score) != ix.n {
		sc = &scratch{
			score: make([]float64, ix.n), name: make([]float64, ix.n), mask: make([]uint64, ix.n),
			wordBest: make([]float32, ix.n), wordRest: make([]float32, ix.n),
			otherForm: make([]bool, ix.n),
		}
	}
	defer func() {
		for _, d := range sc.seen {
			sc.score[d], sc.name[d], sc.mask[d] = 0, 0, 0
		}
		sc.seen = sc.seen[:0]
		for _, d := range sc.otherForms {
			sc.otherForm[d] = false
		}
		sc.otherForms = sc.otherForms[:0]
		ix.scratch.Put(sc)
	}()
	var requiredMask uint64
	var active []activeTerm
	where := make(map[int32]int) // term id -> index in active
	for qi, qt := range qterms {
		bit := uint64(1) << qi
		if qt.required {
			requiredMask |= bit
		}
		for _, m := range qt.matches {
			nameWeight := m.weight
			nameScale := 1.0
			if qt.place {
				nameWeight *= placeNameWeight
				nameScale = placeNameScale
			}
			if qt.state {
				nameWeight *= stateNameWeight
				nameScale = stateNameWeight
			}
			if i, ok := where[m.id]; ok {
				if m.weight > active[i].weight {
					active[i].weight, active[i].word = m.weight, qi
				}
				active[i].nameWeight = max(active[i].nameWeight, nameWeight)
				active[i].nameScale = max(active[i].nameScale, nameScale)
				active[i].bits |= bit
				continue
			}
			where[m.id] = len(active)
			active = append(active, activeTerm{id: m.id, weight: m.weight, nameWeight: nameWeight, nameScale: nameScale, bits: bit, word: qi})
		}
	}
	byWord := slices.Clone(active)
	slices.SortStableFunc(byWord, func(a, b activeTerm) int { return cmp.Compare(a.word, b.word) })
	for start := 0; start < len(byWord); {
		end := start + 1
		for end < len(byWord) && byWord[end].word == byWord[start].word {
			end++
		}
		ix.scoreWord(sc, byWord[start:end])
		start = end
	}
	domainScore := ix.domainScores(active)
	ix.addDomainRelevance(domainScore, active)
	items := numberedItems(req.Text)
	ix.markOtherForms(sc, req.Text, items)
	// The request names what it acts on: a file or a numbered item.
	namesOne := namesFile || len(items) > 0
	placed := placedItems(req.Text, items, ix.stems)
	order := conversionOrder(req.Text, ix.stems)
	counted := countsItems(req.Text)
	told := askedForWords(req.Text)
	h := &hitHeap{}
	want := req.Offset + req.Limit
	keep := want
	if want > 0 {
		// Meaning reorders the first meaningDepth hits, whatever the page.
		keep = max(want, meaningDepth)
	}
	for _, d := range sc.seen {
		if sc.mask[d]&requiredMask != requiredMask || (req.Allow != nil && !req.Allow(int(d))) {
			continue
		}
		total++
		s := sc.score[d] + domainScore[ix.docDomain[d]]
		if n := ix.docNameLen[d]; n > 0 {
			// The share of the tool's name the query spells out.
			s += nameCoverageBonus * sc.name[d] / float64(n)
		}
		if namesOne && ix.docLists[d] {
			s *= 1 - listingPenalty
		}
		if asked != intentUnknown && ix.docIntent[d] == -asked {
			s *= 1 - intentPenalty
		}
		if ix.opposes(d, wanted) {
			s *= 1 - oppositePenalty
		}
		if sc.otherForm[d] {
			s *= 1 - numberedPenalty
		}
		if ix.takesItem(d, placed) {
			s *= 1 + itemParameterBonus
		}
		if told != nil && ix.takesWhatIsAsked(d, told) {
			s *= 1 - askedInputPenalty
		}
		if counted && ix.takesCount(d) {
			s *= 1 + countParameterBonus
		}
		if order != nil && ix.convertsBackwards(d, order) {
			s *= 1 - backwardsPenalty
		}
		if keep <= 0 {
			continue
		}
		hit := Hit{Doc: int(d), Score: s, Coverage: float64(bits.OnesCount64(sc.mask[d])) / float64(words)}
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
	ix.rerankByMeaning(hits, req.Text)
	if req.Offset >= len(hits) {
		return nil, total
	}
	return hits[req.Offset:min(len(hits), want)], total
}

// scoreWord adds to each document the BM25F score of one query word's
// index terms (its own stem, and the synonyms, prefixes and spellings it
// stands for; see expand): the best of them in full and expansionShare of
// the others. Summed in full, a word with many expansions outweighed the
// rest of the query wherever several of them occur ("search my notes"
// found trial_searcher, whose text holds "search", "searcher", "find" and
// "locate", before search_notes). It also marks the query words each
// document matches and sums the weight of those in its name.
func (ix *Index) scoreWord(sc *scratch, terms []activeTerm) {
	for _, a := range terms {
		idf := ix.idf(a.id)
		for _, p := range ix.postings[a.id] {
			if sc.mask[p.doc] == 0 {
				sc.seen = append(sc.seen, p.doc)
			}
			sc.mask[p.doc] |= a.bits
			tf := float64(p.tf)
			if tf < 0 {
				tf = -tf * a.nameScale
				sc.name[p.doc] += a.nameWeight
			}
			s := a.weight * idf * tf * (k1 + 1) / (tf + k1)
			if len(terms) == 1 {
				sc.score[p.doc] += s
				continue
			}
			s32 := float32(s)
			best := sc.wordBest[p.doc]
			if best == 0 {
				sc.touched = append(sc.touched, p.doc)
			}
			if s32 > best {
				sc.wordBest[p.doc], sc.wordRest[p.doc] = s32, sc.wordRest[p.doc]+best
			} else {
				sc.wordRest[p.doc] += s32
			}
		}
	}
	for _, d := range sc.touched {
		sc.score[d] += float64(sc.wordBest[d]) + expansionShare*float64(sc.wordRest[d])
		sc.wordBest[d], sc.wordRest[d] = 0, 0
	}
	sc.touched = sc.touched[:0]
}

// idf is a term's inverse document frequency (BM25's, never negative).
func (ix *Index) idf(id int32) float64 {
	df := float64(len(ix.postings[id]))
	return math.Log(1 + (float64(ix.n)-df+0.5)/(df+0.5))
}

// addDomainRelevance adds to each domain's score domainRelevance times
// its BM25 relevance as one document (all its tools' text), relative to
// the most relevant domain.
func (ix *Index) addDomainRelevance(scores []float64, active []activeTerm) {
	rel := make([]float64, ix.numDomains)
	best := 0.0
	for _, a := range active {
		w := a.weight
		ps := ix.domainPostings[a.id]
		df := float64(len(ps))
		idf := math.Log(1 + (float64(ix.numDomains)-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			rel[p.doc] += w * idf * tf * (k1 + 1) / (tf + k1)
			best = max(best, rel[p.doc])
		}
	}
	if best == 0 {
		return
	}
	for d := range rel {
		scores[d] += domainRelevance * rel[d] / best
	}
}

// domainScores gives each domain whose name the query mentions a bonus,
// larger for words few domain names share.
func (ix *Index) domainScores(active []activeTerm) []float64 {
	scores := make([]float64, ix.numDomains)
	for _, a := range active {
		domains := ix.domainsByTerm[a.id]
		if len(domains) == 0 {
			continue
		}
		distinctiveness := math.Log(1+float64(ix.numDomains)/float64(len(domains))) / math.Log(1+float64(ix.numDomains))
		for _, d := range domains {
			scores[d] += a.weight * domainBonus * distinctiveness
		}
	}
	return scores
}

// parse analyses the query words and finds the index terms each matches;
// words counts them, and namesFile says whether the query names a file.
func (ix *Index) parse(text string, required []string) (out []queryTerm, words int, namesFile bool) {
	req := make(map[string]bool)
	for _, r := range required {
		for _, t := range terms(r, ix.stems) {
			req[t] = true
		}
	}
	seen := make(map[string]bool)
	text, locatorKinds, locatorPayload, locatorDirs := splitLocators(text)
	namesFile = slices.Contains(strings.Fields(locatorKinds), "file")
	text, quotes := splitQuoted(text)
	text, idents := splitIdentifiers(text)
	text, searched := splitSearchedFor(text)
	text, colonContent := splitColonContent(text)
	text, journeyEnds := splitJourneyEnds(text)
	text, brandParts := joinBrandWords(text, ix.stems, ix.indexed)
	places := placeWords(text, ix.stems)
	english := englishStems(text, ix.stems)
	kinds := valueKinds(text)
	text = withoutNumberRanges(text)
	framing := framingVerb(text, ix.stems)
	describing := clauseVerbs(text, ix.stems)
	openState := openAsState(text)
	for _, t := range terms(saidPlainly(text), ix.stems) {
		if seen[t] || len(out) == maxQueryTerms || requestWords[t] {
			continue
		}
		seen[t] = true
		words++
		qt := queryTerm{required: req[t], place: places[t], state: openState && t == "open", matches: ix.withSynonyms(t, ix.expand(t, english[t]))}
		if lightVerbs[t] {
			for i := range qt.matches {
				qt.matches[i].weight *= lightVerbWeight
			}
		}
		if t == framing {
			for i := range qt.matches {
				qt.matches[i].weight *= framingVerbWeight
			}
		}
		if qt.state {
			for i := range qt.matches {
				qt.matches[i].weight *= stateWeight
			}
		}
		if describing[t] {
			for i := range qt.matches {
				qt.matches[i].weight *= clauseVerbWeight
			}
		}
		if len(qt.matches) == 0 && !qt.required {
			continue
		}
		out = append(out, qt)
	}
	// Words the query implies, weighted: its words run together, the
	// names in its paths, URLs, quotes and snake_case identifiers, what
	// it searches for, the content after its colon and the ends of a
	// journey, what those point at, what its values are,
	// the parts of its brand words, the English gloss of its Chinese, and
	// last, so that a word said otherwise too counts as that
	// ("/root/csv/a.csv"), the directories of its paths. A word counts
	// once, at its first weight.
	for _, derived := range []struct {
		text   string
		weight float64
	}{
		{ix.joinedWords(text), compoundWeight},
		{locatorPayload, payloadWeight},
		{quotes, payloadWeight},
		{idents, payloadWeight},
		{searched, payloadWeight},
		{colonContent, payloadWeight},
		{journeyEnds, payloadWeight},
		{locatorKinds, locatorWeight},
		{kinds, locatorWeight},
		{brandParts, brandPartWeight},
		{englishGloss(text), glossQueryWeight},
		{locatorDirs, dirWeight},
	} {
		for _, t := range terms(derived.text, ix.stems) {
			if seen[t] || len(out) == maxQueryTerms || requestWords[t] {
				continue
			}
			seen[t] = true
			matches := ix.expand(t, false)
			for i := range matches {
				matches[i].weight *= derived.weight
			}
			if len(matches) > 0 {
				words++
				out = append(out, queryTerm{matches: matches})
			}
		}
	}
	for t := range req {
		if !seen[t] {
			// A required word that is not in the text still filters.
			out = append(out, queryTerm{required: true, matches: ix.expand(t, false)})
			words++
		}
	}
	return out, words, namesFile
}

// expand lists the index terms a query term matches: itself; longer terms
// it begins ("repo" matches "repositori"), weighted less when it is itself
// indexed; the noun in -tenance of a verb in -tain (see tenanceNoun); and,
// when it is not indexed, the two indexed words it is made of
// ("mindmap"), indexed terms that begin it ("charger" matches "charg"),
// its siblings (see appendSiblings) and terms one typo away. A typo of an
// English word (english: t is the stem of one, see englishStems) is no
// other letter in its place: "tower" is no typo of "power", nor "pitch"
// of "patch". A letter more or less still counts ("numerals" matches
// "numbering"). A number matches only itself: 1500 is no part of 15000.
func (ix *Index) expand(t string, english bool) []termMatch {
	var out []termMatch
	id, exact := ix.vocab[t]
	if exact {
		out = append(out, termMatch{id: id, weight: 1})
	}
	if len(t) < minFuzzyLen || !isASCIIWord(t) || isDigits(t) {
		return out
	}
	pw := prefixWeight
	if exact {
		pw = indexedPrefixWeight
	}
	for i := ix.prefixStart(t); i < len(ix.byPrefix) && len(out) < maxExpansions && pw > 0; i++ {
		other := ix.terms[ix.byPrefix[i]]
		if !strings.HasPrefix(other, t) {
			break
		}
		if other != t {
			out = append(out, termMatch{id: ix.byPrefix[i], weight: pw})
		}
	}
	if id, ok := ix.tenanceNoun(t); ok {
		out = append(out, termMatch{id: id, weight: prefixWeight})
	}
	if exact {
		return out
	}
	// A compound of two indexed words ("mindmap" for "mind map").
	for i := len(t) - 3; i >= 3; i-- {
		left, lok := ix.vocab[t[:i]]
		right, rok := ix.vocab[t[i:]]
		if lok && rok {
			out = append(out, termMatch{id: left, weight: prefixWeight}, termMatch{id: right, weight: prefixWeight})
			break
		}
	}
	for n := len(t) - 1; n >= max(minFuzzyLen, (len(t)*2+2)/3); n-- {
		if id, ok := ix.vocab[t[:n]]; ok {
			out = append(out, termMatch{id: id, weight: prefixWeight})
			break
		}
	}
	if len(t) >= minSiblingLen {
		out = ix.appendSiblings(out, t)
	}
	if len(t) < minFuzzyLen+1 {
		return out
	}
	seen := make(map[int32]bool)
	for _, d := range deletions(t) {
		for _, id := range ix.deletes[d] {
			if seen[id] || len(out) >= maxExpansions {
				continue
			}
			seen[id] = true
			if editDistance(t, ix.terms[id]) == 1 && !(english && len(ix.terms[id]) == len(t)) {
				out = append(out, termMatch{id: id, weight: typoWeight})
			}
		}
	}
	return out
}

// tenanceNoun returns the indexed noun a verb in -tain makes with
// -tenance: English changes the verb's vowel ("maintain", "maintenance";
// "sustain", "sustenance"), and stems keep the change (maintain,
// mainten), so "how well maintained is it" found no tool about package
// maintenance. Only -tenance: "content" is no noun of "contain".
func (ix *Index) tenanceNoun(t string) (int32, bool) {
	if !strings.HasSuffix(t, "tain") {
		return 0, false
	}
	id, ok := ix.vocab[t[:len(t)-len("ain")]+"en"]
	return id, ok
}

// minSiblingLen is the length from which a query term that is not indexed
// matches its siblings (see appendSiblings).
const minSiblingLen = 6

// appendSiblings appends to out, at prefixWeight, the indexed terms that
// spell all of t but its last letter and end differently, in at most two
// letters more: English derives nouns from Latin verbs by changing the
// verb's last letter ("submit", "submission"; "permit", "permission"),
// and stems keep the change (submit, submiss), so neither matches the
// other as a prefix. Longer terms are other words ("archive" is no
// sibling of "architecture"); terms that begin with t itself are prefix
// matches already.
func (ix *Index) appendSiblings(out []termMatch, t string) []termMatch {
	stem := t[:len(t)-1]
	for i := ix.prefixStart(stem); i < len(ix.byPrefix) && len(out) < maxExpansions; i++ {
		other := ix.terms[ix.byPrefix[i]]
		if !strings.HasPrefix(other, stem) {
			break
		}
		if other != stem && !strings.HasPrefix(other, t) && len(other) <= len(t)+2 {
			out = append(out, termMatch{id: ix.byPrefix[i], weight: prefixWeight})
		}
	}
	return out
}

// withSynonyms adds to a query term's matches the indexed synonyms of
// the term (see synonymGroups), discounted.
func (ix *Index) withSynonyms(t string, matches []termMatch) []termMatch {
	for _, s := range synonymsByStem[t] {
		id, ok := ix.vocab[s]
		if !ok || ix.commonForSynonym(id) || slices.ContainsFunc(matches, func(m termMatch) bool { return m.id == id }) {
			continue
		}
		matches = append(matches, termMatch{id: id, weight: synonymWeight})
	}
	return matches
}

// commonForSynonym reports whether an index term is too common to be
// searched as a synonym: held by over a fifth of a large catalog's
// documents, it barely moves a ranking at half weight, and its long
// posting list costs time. (An eighth, as before, kept "search" from
// "find" and "read" from "open" in LiveMCPBench's catalog, and measured
// 5 first places worse over the tuning sets.)
func (ix *Index) commonForSynonym(id int32) bool {
	df := len(ix.postings[id])
	return df > 64 && df > ix.n/5
}

// deletions are the strings one deletion away from t (SymSpell): two
// words within one edit share a deletion or one is a deletion of the other.
func deletions(t string) []string {
	out := make([]string, 0, len(t)+1)
	out = append(out, t)
	for i := range len(t) {
		out = append(out, t[:i]+t[i+1:])
	}
	return out
}

func isASCIIWord(t string) bool {
	for i := 0; i < len(t); i++ {
		if c := t[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
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
