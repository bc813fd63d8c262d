package retrieval

import (
	"math"
	"testing"
)

func TestCompareHits(t *testing.T) {
	tasks := []Query{
		{Query: "a", Tools: []string{"x"}},
		{Query: "b", Tools: []string{"y"}},
		{Query: "c", Tools: []string{"z"}},
		{Query: "d", Tools: []string{"w"}},
		{Query: "no gold"},
	}
	ours := [][]string{{"x"}, {"q", "y"}, {"z"}, {"q"}, {"x"}}
	base := [][]string{{"q", "x"}, {"y"}, {"z"}, {"q"}, {}}
	// At Hit@1: task a won, task b lost, c and d the same: diffs +1 -1 0 0.
	m := CompareHits(tasks, ours, base, 1)
	if m.Won != 1 || m.Lost != 1 || m.Lead != 0 {
		t.Errorf("Hit@1 margin = %+v, want 1 won, 1 lost, lead 0", m)
	}
	// Sample variance of (1, -1, 0, 0) is 2/3; its standard error √(2/3)/2.
	if want := math.Sqrt(2.0/3) / 2; math.Abs(m.StdErr-want) > 1e-12 {
		t.Errorf("Hit@1 standard error = %v, want %v", m.StdErr, want)
	}
	// At Hit@3 both find a, b and c: no difference.
	if m := CompareHits(tasks, ours, base, 3); m.Won != 0 || m.Lost != 0 || m.Lead != 0 || m.StdErr != 0 {
		t.Errorf("Hit@3 margin = %+v, want none", m)
	}
	// A name twice counts once, as Evaluate counts it.
	dup := CompareHits(tasks[:1], [][]string{{"q", "q", "x"}}, [][]string{{"q"}}, 2)
	if dup.Won != 1 {
		t.Errorf("a repeated name took a place: %+v", dup)
	}
}
