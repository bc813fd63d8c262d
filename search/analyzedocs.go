package search

import (
	"runtime"
	"strings"
	"sync"
)

// docAnalysis is what indexing reads of one document on its own: its
// terms by field and the words of its name and parameter names. Documents
// are analysed in parallel (see analyzeDocs), and the signals' Doc sides
// read each analysis there; everything that needs the whole catalog (term
// ids, lengths, domains) comes after, in document order.
type docAnalysis struct {
	terms        [numFields][]string
	nameWordList []string // the Words of its name
	nameWords    string   // the same, each followed by a space
	paramWords   string   // the words of its parameter names, each followed by a space
	// stems is the memo of stems of the goroutine analysing it.
	stems *stemCache
}

// minDocsPerWorker keeps small catalogs on one goroutine: below it,
// starting workers costs more than it saves.
const minDocsPerWorker = 512

// analyzeDocs analyses docs on up to GOMAXPROCS goroutines, each over a
// run of documents with its own memo of stems, and has the signals' Doc
// sides read each; it returns the analyses in document order and the
// stems the workers met, merged.
func analyzeDocs(docs []Document, signals []signalDocs) ([]docAnalysis, *stemCache) {
	out := make([]docAnalysis, len(docs))
	workers := max(1, min(runtime.GOMAXPROCS(0), len(docs)/minDocsPerWorker))
	caches := make([]*stemCache, workers)
	var wg sync.WaitGroup
	for w := range workers {
		caches[w] = newStemCache()
		from, to := w*len(docs)/workers, (w+1)*len(docs)/workers
		wg.Go(func() {
			a := docAnalyzer{stems: caches[w], domainTerms: make(map[string][]string)}
			for i := from; i < to; i++ {
				a.analyze(&docs[i], &out[i])
				for _, s := range signals {
					s.analyze(i, &docs[i], &out[i])
				}
			}
		})
	}
	wg.Wait()
	stems := caches[0]
	for _, c := range caches[1:] {
		for w, s := range c.m {
			stems.m[w] = s
		}
	}
	return out, stems
}

// docAnalyzer analyses documents on one goroutine.
type docAnalyzer struct {
	stems *stemCache
	// domainTerms memoises the terms of domain descriptions, which a
	// domain's tools share.
	domainTerms map[string][]string
}

func (a *docAnalyzer) analyze(doc *Document, out *docAnalysis) {
	for f := range numFields {
		var ts []string
		switch f {
		case fieldGloss:
			ts = terms(englishGloss(doc.Title)+" "+englishGloss(doc.Description), a.stems)
		case fieldDomainDescription:
			text := doc.DomainDescription
			var ok bool
			if ts, ok = a.domainTerms[text]; !ok {
				ts = textTerms(text+" "+englishGloss(text), a.stems)
				a.domainTerms[text] = ts
			}
		case fieldTitle, fieldDescription:
			ts = textTerms(doc.field(f), a.stems)
		case fieldParamNames:
			paramWords := Words(doc.ParamNames)
			out.paramWords = strings.Join(paramWords, " ") + " "
			ts = wordTerms(paramWords, a.stems)
		default:
			ts = terms(doc.field(f), a.stems)
		}
		out.terms[f] = ts
	}
	out.nameWordList = Words(doc.Name)
	out.nameWords = strings.Join(out.nameWordList, " ") + " "
	out.stems = a.stems
}

// textTerms are the index terms of prose: its terms, and brand words
// whole beside their parts (see brandTerms).
func textTerms(text string, stems *stemCache) []string {
	return append(terms(text, stems), brandTerms(text, stems)...)
}
