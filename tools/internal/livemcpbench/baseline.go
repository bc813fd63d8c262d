package livemcpbench

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// Baseline is plain Okapi BM25 (k1 1.2, b 0.75) at tool level over the
// name, description and parameter names, with lower-case alphanumeric
// tokens and nothing else: the reference the gateway's search is measured
// against.
type Baseline struct {
	tools    []ToolRef
	postings map[string]map[int]int
	docLen   []int
	avgLen   float64
}

// NewBaseline indexes every tool of servers.
func NewBaseline(servers []*Server) *Baseline {
	b := &Baseline{postings: make(map[string]map[int]int)}
	total := 0
	for _, s := range servers {
		for _, t := range s.Tools {
			doc := len(b.tools)
			b.tools = append(b.tools, ToolRef{Domain: s.Domain, Name: t.Name})
			text := t.Name + " " + t.Description + " " + strings.Join(paramNames(t.InputSchema), " ")
			toks := baselineTokens(text)
			for _, tok := range toks {
				if b.postings[tok] == nil {
					b.postings[tok] = make(map[int]int)
				}
				b.postings[tok][doc]++
			}
			b.docLen = append(b.docLen, len(toks))
			total += len(toks)
		}
	}
	b.avgLen = float64(total) / float64(max(len(b.tools), 1))
	return b
}

// Rank returns the names of the top k tools for query.
func (b *Baseline) Rank(query string, k int) []string {
	var names []string
	for _, r := range b.RankRefs(query, k) {
		names = append(names, r.Name)
	}
	return names
}

// RankRefs returns the top k tools for query.
func (b *Baseline) RankRefs(query string, k int) []ToolRef {
	const k1, bb = 1.2, 0.75
	scores := make(map[int]float64)
	n := float64(len(b.tools))
	for _, tok := range baselineTokens(query) {
		ps := b.postings[tok]
		if len(ps) == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for doc, tf := range ps {
			f := float64(tf)
			scores[doc] += idf * f * (k1 + 1) / (f + k1*(1-bb+bb*float64(b.docLen[doc])/b.avgLen))
		}
	}
	docs := make([]int, 0, len(scores))
	for d := range scores {
		docs = append(docs, d)
	}
	sort.Slice(docs, func(i, j int) bool {
		if scores[docs[i]] != scores[docs[j]] {
			return scores[docs[i]] > scores[docs[j]]
		}
		return docs[i] < docs[j]
	})
	var out []ToolRef
	for _, d := range docs[:min(k, len(docs))] {
		out = append(out, b.tools[d])
	}
	return out
}

func baselineTokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func paramNames(schema any) []string {
	m, _ := schema.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	var names []string
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
