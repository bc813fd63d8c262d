package search

import (
	"runtime"
	"strings"
	"sync"
)

// docAnalysis is what indexing reads of one document on its own: its
// terms by field and what its name says. Documents are analysed in
// parallel (see analyzeDocs); everything that needs the whole catalog
// (term ids, lengths, domains) comes after, in document order.
type docAnalysis struct {
	terms      [numFields][]string
	nameWords  string // the words of its name, each followed by a space
	paramWords string // the words of its parameter names, each followed by a space
	inputWords string // see inputWords
	intent     intent
	effect     effect
	lists      bool
	makes      bool
}

// minDocsPerWorker keeps small catalogs on one goroutine: below it,
// starting workers costs more than it saves.
const minDocsPerWorker = 512

// analyzeDocs analyses docs on up to GOMAXPROCS goroutines, each over a
// run of documents with its own memo of stems; it returns the analyses in
// document order and the stems the workers met, merged.
func analyzeDocs(docs []Document) ([]docAnalysis, *stemCache) {
	mentions := toolNameMentions(docs)
	out := make([]docAnalysis, len(docs))
	workers := max(1, min(runtime.GOMAXPROCS(0), len(docs)/minDocsPerWorker))
	caches := make([]*stemCache, workers)
	var wg sync.WaitGroup
	for w := range workers {
		caches[w] = newStemCache()
		from, to := w*len(docs)/workers, (w+1)*len(docs)/workers
		wg.Go(func() {
			a := docAnalyzer{stems: caches[w], mentions: mentions, domainTerms: make(map[string][]string)}
			for i := from; i < to; i++ {
				a.analyze(&docs[i], &out[i])
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
	stems    *stemCache
	mentions map[string]bool // see toolNameMentions
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
		case fieldTitle:
			ts = textTerms(doc.Title, a.stems)
		case fieldDescription:
			ts = textTerms(withoutMentions(doc.Description, doc.Name, a.mentions), a.stems)
		case fieldParams:
			ts = terms(withoutMentions(doc.Params, doc.Name, a.mentions), a.stems)
		case fieldParamNames:
			paramWords := Words(doc.ParamNames)
			out.paramWords = strings.Join(paramWords, " ") + " "
			ts = wordTerms(paramWords, a.stems)
		default:
			ts = terms(doc.field(f), a.stems)
		}
		out.terms[f] = ts
	}
	nameWords := Words(doc.Name)
	out.intent = toolIntent(nameWords, doc.Description)
	out.effect = toolEffect(nameWords)
	out.lists = listingTool(nameWords)
	out.makes = makesNew(nameWords)
	out.nameWords = strings.Join(nameWords, " ") + " "
	out.inputWords = inputWords(doc, out.terms[fieldName], out.terms[fieldTitle], a.stems)
}

// textTerms are the index terms of prose: its terms, and brand words
// whole beside their parts (see brandTerms).
func textTerms(text string, stems *stemCache) []string {
	return append(terms(text, stems), brandTerms(text, stems)...)
}
