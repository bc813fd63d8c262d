package search

// A signal is one named rule of ranking beyond BM25F: what a tool's name,
// domain, verbs or parameters say against what a request asks. It has two
// sides. Its Doc side (signalDocs) holds the facts it reads off each
// document when the index is built ("this tool's name begins with a verb
// of change"); its Query side (signalQuery) is what it reads off one
// request ("this request asks to be told something") and, from the two,
// what it does to each document's score, which it can explain.
//
// A signal adds to a score or multiplies it. The signals apply in the
// order of the signals list below, to the BM25F score of the request's
// words (see bm25f.go): a document's score is
//
//	((bm25f + add₁) × times₁ + add₂) × times₂ ...
//
// with add 0 and times 1 for every signal that leaves it alone. A new rule
// is a new signal: a file with its two sides, and its place in the list.
type signal interface {
	// name names the signal in explanations.
	name() string
	// newDocs makes the signal's Doc side for a catalog of n documents.
	newDocs(n int) signalDocs
}

// signals are the signals in the order they apply: those that add first,
// then those that multiply.
var signals = []signal{
	domainNamed{},
	domainRelevant{},
	nameCoverage{},
	listing{},
	pluralListing{},
	intentSignal{},
	effectSignal{},
	numbered{},
	placedItem{},
	askedFor{},
	counted{},
	severalItemsSignal{},
	negatedAction{},
}

// signalOff says, by place in signals, which are switched off (see
// ablation.go).
var signalOff = func() []bool {
	out := make([]bool, len(signals))
	for i, s := range signals {
		out[i] = isOff(ablationName(s.name()))
	}
	return out
}()

// signalDocs is a signal's Doc side: its facts about each document.
type signalDocs interface {
	// analyze records the facts of document i from the document and its
	// analysis. It runs on several goroutines at once, each for other
	// documents: it must write nothing but document i's facts.
	analyze(i int, doc *Document, a *docAnalysis)
	// query reads one ranking's request and returns the signal's Query
	// side for it, or nil when the signal has nothing to say about it.
	query(r *ranking) signalQuery
}

// catalogSignalDocs is a Doc side that also reads the whole catalog once
// its terms have ids: what one document cannot tell alone.
type catalogSignalDocs interface {
	signalDocs
	// finish reads every document's term ids by field.
	finish(ix *Index, docTerms [][numFields][]int32)
}

// signalQuery is a signal's Query side for one request.
type signalQuery interface {
	// read says what the signal read off the request, for explanations
	// ("asks to read: it begins with 'what'").
	read() string
	// effect is what the signal does to document d's score s: s becomes
	// (s + add) × times.
	effect(d int32) (add, times float64)
	// apply applies effect to each of docs, whose scores are scores: one
	// call for a ranking's candidates, rather than one per document.
	apply(docs []int32, scores []float64)
	// reason says why the signal moves document d; it is asked only of
	// documents it moves.
	reason(d int32) string
}

// ranking is one ranking of a request's text, as signals read it: the
// text (a step's, or the whole request's), the request understood, the
// index terms it matches and the lexical scores so far.
type ranking struct {
	ix   *Index
	text string
	// wholeOfSteps says the text is the whole of a request of several
	// steps (see searchSteps), whose steps may both ask and act: the
	// signals that read a request's verb leave it alone.
	wholeOfSteps bool
	read         *reading
	active       []activeTerm
	lex          *scratch

	items     []string // see numberedItems; once itemsRead
	itemsRead bool
}

// numberedItems are the items the text names by number (see
// numberedItems), read once for the signals that ask.
func (r *ranking) numberedItems() []string {
	if !r.itemsRead {
		r.items, r.itemsRead = numberedItems(r.text), true
	}
	return r.items
}

// objectWords are the bits (see activeTerm) of the request's words but
// its verb: the first word past the leading ones (see requestVerb), when
// it is one of the request's own words. What the request is about.
func (r *ranking) objectWords() uint64 {
	all := uint64(1)<<len(r.read.terms) - 1
	words := Words(r.text)
	i := firstRequestWord(words)
	if i == len(words) {
		return all
	}
	verb := r.ix.stems.stem(words[i])
	for qi, qt := range r.read.terms {
		if qt.word == verb && qt.part == partText {
			return all &^ (1 << qi)
		}
	}
	return all
}

// activeSignal is a signal's Query side for a ranking, with its name.
type activeSignal struct {
	name string
	q    signalQuery
}

// signalQueries are the Query sides of the signals that have something to
// say about the ranking's request, in order.
func (r *ranking) signalQueries() []activeSignal {
	var out []activeSignal
	for i, s := range r.ix.signals {
		if signalOff[i] {
			continue
		}
		if q := s.query(r); q != nil {
			out = append(out, activeSignal{name: signals[i].name(), q: q})
		}
	}
	return out
}

// applySignals applies the signals, in order, to docs, whose scores
// (their BM25F scores) are scores.
func applySignals(docs []int32, scores []float64, active []activeSignal) {
	for _, a := range active {
		a.q.apply(docs, scores)
	}
}

// factor is a signalQuery's effect for a signal that multiplies: times
// when the document is one it moves, else 1.
func factor(moves bool, times float64) (float64, float64) {
	if moves {
		return 0, times
	}
	return 0, 1
}
