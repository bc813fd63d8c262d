package retrieval

import "math"

// Margin is how much one ranking leads another at Hit@k over the same
// tasks, with the paired standard error of that lead: each task counts
// +1 where only the first finds a gold tool in its first k, -1 where
// only the second does, 0 otherwise.
type Margin struct {
	Lead      float64 // mean of the per-task differences
	StdErr    float64 // their standard error (sample standard deviation / √n)
	Won, Lost int     // tasks only the first, or only the second, finds
}

// CompareHits is the Margin at Hit@k of rankings a over rankings b, both
// scored against tasks as Evaluate scores them. Tasks without gold tools
// are left out.
func CompareHits(tasks []Query, a, b [][]string, k int) Margin {
	var diffs []float64
	var m Margin
	for i, task := range tasks {
		if len(task.Tools) == 0 {
			continue
		}
		d := hitAt(task, a[i], k) - hitAt(task, b[i], k)
		switch {
		case d > 0:
			m.Won++
		case d < 0:
			m.Lost++
		}
		diffs = append(diffs, d)
	}
	n := float64(len(diffs))
	if n == 0 {
		return m
	}
	for _, d := range diffs {
		m.Lead += d
	}
	m.Lead /= n
	if n > 1 {
		var ss float64
		for _, d := range diffs {
			ss += (d - m.Lead) * (d - m.Lead)
		}
		m.StdErr = math.Sqrt(ss/(n-1)) / math.Sqrt(n)
	}
	return m
}

// hitAt is 1 when a gold tool of task is among the first k distinct names
// of ranking, else 0, as Evaluate counts a hit.
func hitAt(task Query, ranking []string, k int) float64 {
	return hit(foundIn(goldSet(task), dedupe(ranking), k))
}
