// Package search ranks documents (tool descriptions) against free-text
// queries and suggests names close to a misspelled one. It knows nothing of
// MCP or Caddy: documents in, ranked hits out.
//
// A ranking is a pipeline, each stage in files of its own:
//
//   - text analysis (words.go, analyze.go, glossary.go, boilerplate.go,
//     analyzedocs.go): text to index terms, with the stop words, stems and
//     the English gloss of Chinese (its glossary is package cedict, in
//     the builds that import it: see UseGlossary);
//   - the lexicon (lexicon.go, lexicon/*.txt): stop words, request words,
//     the thesaurus and idioms, as data;
//   - query understanding (understand.go and the part readers and word
//     rules of locators.go, identifiers.go, values.go, places.go,
//     describing.go, passiveget.go, idioms.go): a request to weighted
//     words;
//   - matching (match.go): the index terms each word stands for;
//   - scoring (bm25f.go): BM25F over the fields;
//   - signals (signal.go and one file each: domain.go, namecoverage.go,
//     listing.go, plurallisting.go, intent.go, effect.go, numbered.go,
//     placed.go, askedfor.go, counted.go, severalitems.go, negated.go):
//     named rules, each with a Doc side, a Query side and a factor it
//     explains;
//   - reranks (meaning.go, steps.go): meaning reorders the near misses,
//     and a request of several steps merges its steps' rankings;
//   - explanations (explain.go): Request.Explain says why each hit ranks
//     where it does, in the order the ranking was decided.
//
// The rule for ranking changes: a change lands only if it lowers no
// catalog it was not tuned on. Measure it on every catalog the retrieval
// benchmark holds, beside plain BM25, and say in its commit which catalog
// it was tuned on and what it did to each. Knowledge that serves the tools
// of one catalog (a thesaurus group, an idiom, a rule whose only effect is
// one tool) is overfitting, however much that catalog gains: the lexicon
// holds general English only, and an operator adds their catalog's words
// as synonyms of their own (Options.Synonyms). TestGoldenRankings holds
// every LiveMCPBench ranking: a change that means to leave the ranking
// alone leaves it alone. What each part pays is measured by switching it
// off (ablation.go; tools/bench/ablation): a part, a thesaurus group or
// an idiom stays only while it pays on requests it was not tuned on.
package search
