// Package retrieval scores tool search: labelled queries, and the usual
// retrieval figures of rankings against them.
package retrieval

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
)

// Query is a labelled request: the tools that answer it.
type Query struct {
	ID       string   `json:"task_id,omitempty"`
	Query    string   `json:"query"`
	Category string   `json:"category,omitempty"`
	Tools    []string `json:"tools"`
}

// ReadQueries reads a JSON array of labelled queries.
func ReadQueries(path string) ([]Query, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var qs []Query
	if err := json.Unmarshal(b, &qs); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return qs, nil
}

// Metrics are retrieval quality figures averaged over tasks. A ranking is
// a list of bare tool names, best first; a gold tool is found at the first
// rank holding its name.
type Metrics struct {
	Tasks    int
	Recall1  float64
	Recall3  float64
	Recall5  float64
	Recall10 float64
	Hit1     float64 // share of tasks with a gold tool at rank 1
	Hit3     float64
	Hit5     float64
	MRR10    float64 // mean reciprocal rank of the first gold tool in the top 10
	NDCG5    float64 // binary relevance
}

// Evaluate scores rankings[i] against tasks[i].Tools.
func Evaluate(tasks []Query, rankings [][]string) Metrics {
	var m Metrics
	for i, task := range tasks {
		gold := goldSet(task)
		if len(gold) == 0 {
			continue
		}
		m.Tasks++
		ranked := dedupe(rankings[i])
		found := func(k int) int { return foundIn(gold, ranked, k) }
		g := float64(len(gold))
		m.Recall1 += float64(found(1)) / g
		m.Recall3 += float64(found(3)) / g
		m.Recall5 += float64(found(5)) / g
		m.Recall10 += float64(found(10)) / g
		m.Hit1 += hit(found(1))
		m.Hit3 += hit(found(3))
		m.Hit5 += hit(found(5))
		for r, name := range ranked[:min(10, len(ranked))] {
			if gold[name] {
				m.MRR10 += 1 / float64(r+1)
				break
			}
		}
		var dcg, ideal float64
		for r := range 5 {
			if r < len(ranked) && gold[ranked[r]] {
				dcg += 1 / math.Log2(float64(r+2))
			}
			if r < len(gold) {
				ideal += 1 / math.Log2(float64(r+2))
			}
		}
		m.NDCG5 += dcg / ideal
	}
	if m.Tasks > 0 {
		n := float64(m.Tasks)
		for _, p := range []*float64{&m.Recall1, &m.Recall3, &m.Recall5, &m.Recall10, &m.Hit1, &m.Hit3, &m.Hit5, &m.MRR10, &m.NDCG5} {
			*p /= n
		}
	}
	return m
}

// goldSet is the set of a task's gold tools.
func goldSet(task Query) map[string]bool {
	gold := make(map[string]bool, len(task.Tools))
	for _, g := range task.Tools {
		gold[g] = true
	}
	return gold
}

// foundIn counts the gold tools among the first k names of ranked (a
// ranking without repeats, see dedupe).
func foundIn(gold map[string]bool, ranked []string, k int) int {
	n := 0
	for _, name := range ranked[:min(k, len(ranked))] {
		if gold[name] {
			n++
		}
	}
	return n
}

func hit(n int) float64 {
	if n > 0 {
		return 1
	}
	return 0
}

// dedupe keeps the first occurrence of each name: two servers' write_file
// count once.
func dedupe(names []string) []string {
	seen := make(map[string]bool, len(names))
	out := make([]string, 0, len(names))
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// Header and Row format metrics as a text table.
func Header() string {
	return fmt.Sprintf("%-24s %5s %6s %6s %6s %6s %6s %6s %6s %6s %6s", "ranker", "tasks", "R@1", "R@3", "R@5", "R@10", "Hit@1", "Hit@3", "Hit@5", "MRR@10", "nDCG@5")
}

// Row is one ranker's line of the table.
func (m Metrics) Row(name string) string {
	return fmt.Sprintf("%-24s %5d %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f", name, m.Tasks,
		m.Recall1, m.Recall3, m.Recall5, m.Recall10, m.Hit1, m.Hit3, m.Hit5, m.MRR10, m.NDCG5)
}
