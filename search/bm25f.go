package search

import (
	"math"
	"slices"
)

// Scoring: BM25F. Each field of a document weighs its own (a word in a
// tool's name says more than one in a parameter's description), and is
// normalised by its own length; a term's frequencies in the fields, so
// weighted, are summed before BM25's saturation. A query word may match
// several index terms (its stem, and the synonyms, prefixes and spellings
// it stands for, see expand): it counts once, its best term in full and
// the others at expansionShare.

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

// fieldNames name the fields in explanations.
var fieldNames = [numFields]string{
	fieldName:              "name",
	fieldTitle:             "title",
	fieldDescription:       "description",
	fieldParams:            "parameters",
	fieldDomain:            "domain",
	fieldDomainDescription: "domain description",
	fieldGroup:             "group",
	fieldParamNames:        "parameter names",
	fieldGloss:             "English gloss",
}

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

// BM25F field weights and length normalisation.
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
	// expansionShare is how much of its score a document keeps for each
	// index term a query word matches besides its best one (see
	// scoreWord): a word counts once, however many of its synonyms,
	// prefixes and spellings a tool's text holds.
	expansionShare = 0.5
)

type posting struct {
	doc int32
	// tf is the field-weighted, length-normalised term frequency; it is
	// negated when the term is also a word of the document's name.
	tf float32
}

// fieldSet is a set of fields, one bit each.
type fieldSet uint16

// names are the fields' names, in field order.
func (s fieldSet) names() []string {
	var out []string
	for f := range numFields {
		if s&(1<<f) != 0 {
			out = append(out, fieldNames[f])
		}
	}
	return out
}

// buildPostings makes each term's postings from the documents' term ids
// by field, and the fields each posting's document holds the term in.
func (ix *Index) buildPostings(docTerms [][numFields][]int32) {
	// A field's average length is over the documents that have it: most
	// tools have no title and few a Chinese description, and averaging
	// over all would make every title and gloss look long.
	var totalLen, withField [numFields]float64
	for i := range docTerms {
		for f := range numFields {
			totalLen[f] += float64(len(docTerms[i][f]))
			if len(docTerms[i][f]) > 0 {
				withField[f]++
			}
		}
	}
	var avgLen [numFields]float64
	for f := range numFields {
		avgLen[f] = max(totalLen[f]/max(withField[f], 1), 1)
	}
	ix.postings = make([][]posting, len(ix.terms))
	ix.postingFields = make([][]fieldSet, len(ix.terms))
	// One document at a time, its weighted term frequencies by term id
	// (tf, nonzero for the ids in touched); appended in document order,
	// each term's postings come sorted by document.
	tf := make([]float64, len(ix.terms))
	fields := make([]fieldSet, len(ix.terms))
	var touched []int32
	for i := range docTerms {
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
				fields[id] |= 1 << f
			}
		}
		for _, id := range touched {
			v := tf[id]
			tf[id] = 0
			if slices.Contains(docTerms[i][fieldName], id) {
				v = -v
			}
			ix.postings[id] = append(ix.postings[id], posting{doc: int32(i), tf: float32(v)})
			ix.postingFields[id] = append(ix.postingFields[id], fields[id])
			fields[id] = 0
		}
	}
	ix.countOwnDF()
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

// termScore is what one of a query word's index terms scores in document
// d as scoreWord scores it, and the fields d holds it in; ok is false if
// d does not hold it.
func (ix *Index) termScore(a activeTerm, d int32) (s float64, fields fieldSet, ok bool) {
	ps := ix.postings[a.id]
	i, found := slices.BinarySearchFunc(ps, d, func(p posting, d int32) int { return int(p.doc - d) })
	if !found {
		return 0, 0, false
	}
	tf := float64(ps[i].tf)
	if tf < 0 {
		tf = -tf * a.nameScale
	}
	return a.weight * ix.idf(a.id) * tf * (k1 + 1) / (tf + k1), ix.postingFields[a.id][i], true
}

// idf is a term's inverse document frequency (BM25's, never negative),
// with the documents that hold it only as their domain's word counted
// less (see countOwnDF).
func (ix *Index) idf(id int32) float64 {
	df := float64(ix.ownDF[id])
	return math.Log(1 + (float64(ix.n)-df+0.5)/(df+0.5))
}

// domainFields are the fields a document shares with every other
// document of its domain.
const domainFields = fieldSet(1<<fieldDomain | 1<<fieldDomainDescription)

// countOwnDF sets ownDF: for each term, how many documents hold it in
// their own fields, with those that hold it only in the fields they share
// with their domain (see domainFields) counted at sharedDFWeight. A word
// of a domain's description is in every one of its tools, and counted in
// full there it made rare what only one tool says common: "image" of
// "echo, sums, images, resources" made get-tiny-image's own "image" a word
// eleven tools of thirty hold, and "generate an image" found the memory
// server's create_entities first.
func (ix *Index) countOwnDF() {
	ix.ownDF = make([]float32, len(ix.postings))
	for id, fields := range ix.postingFields {
		own, shared := 0, 0
		for _, f := range fields {
			if f&^domainFields != 0 {
				own++
			} else {
				shared++
			}
		}
		ix.ownDF[id] = float32(own) + sharedDFWeight*float32(shared)
	}
}

// sharedDFWeight is how much a document that holds a term only in the
// fields it shares with its domain counts in the term's document
// frequency.
// How it was chosen: docs/search.md, "The tuned values".
const sharedDFWeight = 0.25
