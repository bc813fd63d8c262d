package search

import (
	"math"
	"slices"
)

// Document is one searchable item, described field by field. Fields weigh
// differently: a query word in the name says more than one in a parameter.
type Document struct {
	Name        string
	Title       string
	Description string
	// Params holds parameter names and their descriptions.
	Params string
	// Domain holds the domain's name and description.
	Domain string
	Group  string
}

type field int

const (
	fieldName field = iota
	fieldTitle
	fieldDescription
	fieldParams
	fieldDomain
	fieldGroup
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
	case fieldGroup:
		return d.Group
	}
	return ""
}

// BM25F parameters: per-field weights and length normalisation.
var (
	fieldWeight = [numFields]float64{
		fieldName:        3,
		fieldTitle:       2,
		fieldDescription: 1,
		fieldParams:      0.4,
		fieldDomain:      1.5,
		fieldGroup:       1.5,
	}
	fieldLengthNorm = [numFields]float64{
		fieldName:        0.3,
		fieldTitle:       0.3,
		fieldDescription: 0.75,
		fieldParams:      0.75,
		fieldDomain:      0.5,
		fieldGroup:       0,
	}
)

const k1 = 1.2

type posting struct {
	doc int32
	tf  float32 // field-weighted, length-normalised term frequency
}

// Index is an immutable BM25F index over documents. It is safe for
// concurrent use.
type Index struct {
	n        int
	postings map[string][]posting
}

// NewIndex indexes docs; hits refer to documents by their position in docs.
func NewIndex(docs []Document) *Index {
	words := make([][numFields][]string, len(docs))
	var totalLen [numFields]float64
	for i := range docs {
		for f := range numFields {
			words[i][f] = Words(docs[i].field(f))
			totalLen[f] += float64(len(words[i][f]))
		}
	}
	var avgLen [numFields]float64
	for f := range numFields {
		avgLen[f] = max(totalLen[f]/float64(max(len(docs), 1)), 1)
	}
	ix := &Index{n: len(docs), postings: make(map[string][]posting)}
	tf := make(map[string]float64)
	for i := range docs {
		clear(tf)
		for f := range numFields {
			ws := words[i][f]
			if len(ws) == 0 {
				continue
			}
			norm := 1 - fieldLengthNorm[f] + fieldLengthNorm[f]*float64(len(ws))/avgLen[f]
			for _, w := range ws {
				tf[w] += fieldWeight[f] / norm
			}
		}
		for w, v := range tf {
			ix.postings[w] = append(ix.postings[w], posting{doc: int32(i), tf: float32(v)})
		}
	}
	return ix
}

// Hit is a ranked document.
type Hit struct {
	Doc   int
	Score float64
}

// Search ranks the documents that contain at least one of the query's words
// and that allow accepts (nil accepts all). It returns the best limit hits,
// best first (ties in document order), and how many documents matched.
func (ix *Index) Search(query string, limit int, allow func(doc int) bool) (hits []Hit, total int) {
	terms := Words(query)
	slices.Sort(terms)
	terms = slices.Compact(terms)
	scores := make(map[int32]float64)
	for _, t := range terms {
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (float64(ix.n)-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			scores[p.doc] += idf * tf * (k1 + 1) / (tf + k1)
		}
	}
	for doc, s := range scores {
		if allow == nil || allow(int(doc)) {
			hits = append(hits, Hit{Doc: int(doc), Score: s})
		}
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return a.Doc - b.Doc
	})
	total = len(hits)
	if limit >= 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, total
}
