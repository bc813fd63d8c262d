package search

import (
	"slices"
	"strings"
)

// Matching: the index terms a query word stands for. A word matches its
// own stem; discounted, longer terms it begins and, when it is not in the
// index itself, the words it is made of, shorter terms it extends, its
// siblings and its spellings one typo away; and its synonyms (see
// lexicon.go).

const (
	// prefixWeight discounts a query word that matches only as a prefix
	// ("repo" for "repositori") or by an indexed prefix of it ("charger"
	// for "charg"); indexedPrefixWeight does the same for a word that is
	// itself indexed, whose prefix matches are likelier to be noise.
	prefixWeight        = 0.6
	indexedPrefixWeight = 0.5
	// typoWeight discounts a word not in the index that matches an
	// indexed word one typo away.
	typoWeight = 0.6
	// minFuzzyLen is the shortest query word matched fuzzily.
	minFuzzyLen = 4
	// maxExpansions bounds the index words one query word may stand for.
	maxExpansions = 12
	// minSiblingLen is the length from which a query term that is not
	// indexed matches its siblings (see appendSiblings).
	minSiblingLen = 6
)

// termMatch is an index term a query word matches, how and at what
// weight.
type termMatch struct {
	id     int32
	weight float64
	how    matchKind
}

// matchKind is how a query word matches an index term.
type matchKind uint8

const (
	matchExact matchKind = iota
	matchPrefix
	matchCompoundPart
	matchSibling
	matchTypo
	matchSynonym
)

func (k matchKind) String() string {
	return [...]string{
		matchExact:        "the word",
		matchPrefix:       "a longer word it begins",
		matchCompoundPart: "a word it is made of",
		matchSibling:      "a sibling (its stem with another ending)",
		matchTypo:         "one typo away",
		matchSynonym:      "a synonym",
	}[k]
}

// expand lists the index terms a query term matches: itself; longer terms
// it begins ("repo" matches "repositori"), weighted less when it is itself
// indexed; and, when it is not indexed, the two indexed words it is made of
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
		out = append(out, termMatch{id: id, weight: 1, how: matchExact})
	}
	if len(t) < minFuzzyLen || !isASCIIWord(t) || isDigits(t) {
		return out
	}
	pw := prefixWeight
	if exact {
		pw = indexedPrefixWeight
	}
	if isOff("prefix") {
		pw = 0
	}
	for i := ix.prefixStart(t); i < len(ix.byPrefix) && len(out) < maxExpansions && pw > 0; i++ {
		other := ix.terms[ix.byPrefix[i]]
		if !strings.HasPrefix(other, t) {
			break
		}
		if other != t {
			out = append(out, termMatch{id: ix.byPrefix[i], weight: pw, how: matchPrefix})
		}
	}
	if exact {
		return out
	}
	// A compound of two indexed words ("mindmap" for "mind map").
	for i := len(t) - 3; i >= 3 && !isOff("compound-part"); i-- {
		left, lok := ix.vocab[t[:i]]
		right, rok := ix.vocab[t[i:]]
		if lok && rok {
			out = append(out, termMatch{id: left, weight: prefixWeight, how: matchCompoundPart}, termMatch{id: right, weight: prefixWeight, how: matchCompoundPart})
			break
		}
	}
	if len(t) >= minSiblingLen && !isOff("sibling") {
		out = ix.appendSiblings(out, t)
	}
	if len(t) < minFuzzyLen+1 || isOff("typo") {
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
				out = append(out, termMatch{id: id, weight: typoWeight, how: matchTypo})
			}
		}
	}
	return out
}

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
			out = append(out, termMatch{id: ix.byPrefix[i], weight: prefixWeight, how: matchSibling})
		}
	}
	return out
}

// withSynonyms adds to a query term's matches the indexed synonyms of
// the term (see the thesaurus, lexicon.go), discounted.
func (ix *Index) withSynonyms(t string, matches []termMatch) []termMatch {
	for _, s := range ix.synonyms[t] {
		id, ok := ix.vocab[s]
		if !ok || ix.commonForSynonym(id) || slices.ContainsFunc(matches, func(m termMatch) bool { return m.id == id }) {
			continue
		}
		matches = append(matches, termMatch{id: id, weight: synonymWeight, how: matchSynonym})
	}
	return matches
}

// commonForSynonym reports whether an index term is too common to be
// searched as a synonym: held by over a fifth of a large catalog's
// documents, it barely moves a ranking at half weight, and its long
// posting list costs time.
// How it was chosen: docs/search.md, "The tuned values".
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
