package search

import (
	"fmt"
	"math"
	"strings"
)

// Domains. A request that names a service ("search GitHub for ...",
// "my Notion pages") wants that service's tools, and one about a
// service's subject favours its tools even when it names none of them.
// Two signals say so: domainNamed adds to the tools of a domain whose name
// the request holds, more for a word few domain names share; domainRelevant
// adds to every tool a share of how well its whole domain (all its tools'
// text together, as one document) matches the request, relative to the
// best domain.

const (
	// domainBonus rewards the tools of a domain the query names, scaled
	// by how distinctive the word is among domain names.
	domainBonus = 3.0
	// domainRelevance adds to each tool this share of how well its whole
	// domain matches the query, relative to the best domain.
	domainRelevance = 2.0
)

// domainNamed is the signal of a domain the request names.
type domainNamed struct{}

func (domainNamed) name() string { return "domain named" }

func (domainNamed) newDocs(int) signalDocs { return &domainNamedDocs{} }

type domainNamedDocs struct {
	ix *Index
	// byTerm are the domains whose names hold a term.
	byTerm map[int32][]int32
}

func (*domainNamedDocs) analyze(int, *Document, *docAnalysis) {}

func (s *domainNamedDocs) finish(ix *Index, docTerms [][numFields][]int32) {
	s.ix = ix
	s.byTerm = make(map[int32][]int32)
	seen := make([]bool, ix.numDomains)
	for i := range docTerms {
		if d := ix.docDomain[i]; !seen[d] {
			seen[d] = true
			for _, t := range distinct(docTerms[i][fieldDomain]) {
				s.byTerm[t] = append(s.byTerm[t], d)
			}
		}
	}
}

func (s *domainNamedDocs) query(r *ranking) signalQuery {
	ix := s.ix
	q := &domainNamedQuery{ix: ix, scores: make([]float64, ix.numDomains)}
	for _, a := range r.active {
		domains := s.byTerm[a.id]
		if len(domains) == 0 {
			continue
		}
		distinctiveness := math.Log(1+float64(ix.numDomains)/float64(len(domains))) / math.Log(1+float64(ix.numDomains))
		for _, d := range domains {
			q.scores[d] += a.weight * domainBonus * distinctiveness
		}
		q.terms = append(q.terms, ix.terms[a.id])
	}
	if q.terms == nil {
		return nil
	}
	return q
}

type domainNamedQuery struct {
	ix     *Index
	scores []float64 // by domain
	terms  []string  // the request's terms that domain names hold
}

func (q *domainNamedQuery) read() string {
	return "domain names hold " + quoteAll(q.terms)
}

func (q *domainNamedQuery) apply(docs []int32, scores []float64) {
	for i, d := range docs {
		add, times := q.effect(d)
		scores[i] = (scores[i] + add) * times
	}
}

func (q *domainNamedQuery) effect(d int32) (float64, float64) {
	return q.scores[q.ix.docDomain[d]], 1
}

func (q *domainNamedQuery) reason(d int32) string {
	return fmt.Sprintf("the request names its domain %q", q.ix.domainNames[q.ix.docDomain[d]])
}

// domainRelevant is the signal of a domain whose tools' text matches the
// request.
type domainRelevant struct{}

func (domainRelevant) name() string { return "domain relevance" }

func (domainRelevant) newDocs(int) signalDocs { return &domainRelevantDocs{} }

type domainRelevantDocs struct {
	ix *Index
	// postings index each domain as one document: all its tools' text
	// together, by term id.
	postings map[int32][]posting
}

func (*domainRelevantDocs) analyze(int, *Document, *docAnalysis) {}

func (s *domainRelevantDocs) finish(ix *Index, docTerms [][numFields][]int32) {
	s.ix = ix
	domainTF := make([]map[int32]float64, ix.numDomains)
	domainLen := make([]float64, ix.numDomains)
	for i := range docTerms {
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
	s.postings = make(map[int32][]posting)
	var avgDomainLen float64
	for _, l := range domainLen {
		avgDomainLen += l / float64(max(len(domainLen), 1))
	}
	for d, m := range domainTF {
		for id, v := range m {
			norm := 1 - 0.75 + 0.75*domainLen[d]/max(avgDomainLen, 1)
			s.postings[id] = append(s.postings[id], posting{doc: int32(d), tf: float32(v / norm)})
		}
	}
}

func (s *domainRelevantDocs) query(r *ranking) signalQuery {
	ix := s.ix
	rel := make([]float64, ix.numDomains)
	best := 0.0
	for _, a := range r.active {
		w := a.weight
		ps := s.postings[a.id]
		df := float64(len(ps))
		idf := math.Log(1 + (float64(ix.numDomains)-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			rel[p.doc] += w * idf * tf * (k1 + 1) / (tf + k1)
			best = max(best, rel[p.doc])
		}
	}
	if best == 0 {
		return nil
	}
	q := &domainRelevantQuery{ix: ix, shares: rel}
	for d := range rel {
		q.shares[d] = domainRelevance * rel[d] / best
	}
	return q
}

type domainRelevantQuery struct {
	ix     *Index
	shares []float64 // by domain: domainRelevance × its relevance relative to the best
}

func (q *domainRelevantQuery) read() string {
	return "domains' tools match the request"
}

func (q *domainRelevantQuery) apply(docs []int32, scores []float64) {
	for i, d := range docs {
		add, times := q.effect(d)
		scores[i] = (scores[i] + add) * times
	}
}

func (q *domainRelevantQuery) effect(d int32) (float64, float64) {
	return q.shares[q.ix.docDomain[d]], 1
}

func (q *domainRelevantQuery) reason(d int32) string {
	return fmt.Sprintf("its domain %q, all its tools' text as one, matches the request %.0f%% as well as the best domain",
		q.ix.domainNames[q.ix.docDomain[d]], 100*q.shares[q.ix.docDomain[d]]/domainRelevance)
}

// quoteAll quotes each of words, joined by commas.
func quoteAll(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = fmt.Sprintf("%q", w)
	}
	return strings.Join(q, ", ")
}
