package search

import (
	"slices"
	"strings"

	"github.com/sahilm/fuzzy"
)

// minSuggestScore is how alike a candidate must be to be suggested at all.
const minSuggestScore = 0.5

// relativeSuggestCut drops candidates scoring under this share of the best.
const relativeSuggestCut = 0.8

// The scores given to fuzzy subsequence matches, worst to best.
const (
	fuzzyFloor   = 0.7
	fuzzyCeiling = 0.85
)

// Suggest returns the indexes of up to n candidates that look like what
// input was meant to be, best first: misspellings (edit distance),
// abbreviations (fuzzy subsequence matches, "apollo_search" for
// "apollo_people_search") and names sharing words ("search_people" for
// "people_search"). Nothing is suggested when nothing is close.
func Suggest(input string, candidates []string, n int) []int {
	in := strings.ToLower(strings.TrimSpace(input))
	if in == "" || n <= 0 {
		return nil
	}
	score := make([]float64, len(candidates))
	inWords := Words(input)
	for i, c := range candidates {
		lc := strings.ToLower(c)
		d := editDistance(in, lc)
		score[i] = max(1-float64(d)/float64(max(len([]rune(in)), len([]rune(lc)))), wordOverlap(inWords, Words(c)))
	}
	// Abbreviations: every character of input appears, in order, in the
	// candidate. sahilm/fuzzy scores those; map its scores onto
	// [fuzzyFloor, fuzzyCeiling].
	matches := fuzzy.Find(in, lowerAll(candidates))
	if len(matches) > 0 {
		best, worst := matches[0].Score, matches[len(matches)-1].Score
		for _, m := range matches {
			s := fuzzyCeiling
			if best > worst {
				s = fuzzyFloor + (fuzzyCeiling-fuzzyFloor)*float64(m.Score-worst)/float64(best-worst)
			}
			score[m.Index] = max(score[m.Index], s)
		}
	}
	var picked []int
	for i, s := range score {
		if s >= minSuggestScore {
			picked = append(picked, i)
		}
	}
	slices.SortStableFunc(picked, func(a, b int) int {
		switch {
		case score[a] > score[b]:
			return -1
		case score[a] < score[b]:
			return 1
		}
		return 0
	})
	// Only candidates nearly as close as the best: one clear answer should
	// not come with noise.
	for i, c := range picked {
		if i >= n || score[c] < relativeSuggestCut*score[picked[0]] {
			return picked[:i]
		}
	}
	return picked
}

func lowerAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return out
}

// wordOverlap is the share of words the two lists have in common
// (Jaccard over sets), so word order and separators do not matter.
func wordOverlap(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	set := make(map[string]bool, len(a))
	for _, w := range a {
		set[w] = true
	}
	common, union := 0, len(set)
	seen := make(map[string]bool, len(b))
	for _, w := range b {
		if seen[w] {
			continue
		}
		seen[w] = true
		if set[w] {
			common++
		} else {
			union++
		}
	}
	return float64(common) / float64(union)
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and transpositions of adjacent
// characters each cost one.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 256 || len(rb) > 256 {
		// Names are short; do not spend quadratic time on hostile input.
		return max(len(ra), len(rb))
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range cur {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
