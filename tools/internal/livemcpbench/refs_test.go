package livemcpbench

import (
	"reflect"
	"testing"
)

func TestTaskNames(t *testing.T) {
	ranking := []ToolRef{{"github", "projects_list"}, {"kubernetes", "projects_list"}, {"filesystem", "read_file"}}
	for _, tc := range []struct {
		gold []string
		want []string
	}{
		// Bare gold names: every result by its bare name, as LiveMCPBench counts.
		{[]string{"read_file"}, []string{"projects_list", "projects_list", "read_file"}},
		// A qualified gold name matches that server's tool only.
		{[]string{"kubernetes.projects_list"}, []string{"projects_list", "kubernetes.projects_list", "read_file"}},
	} {
		if got := TaskNames(Task{Tools: tc.gold}, ranking); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("gold %v: names %v, want %v", tc.gold, got, tc.want)
		}
	}
}

func TestBaselineRankRefs(t *testing.T) {
	servers, err := Servers("")
	if err != nil {
		t.Fatal(err)
	}
	b := NewBaseline(servers)
	refs := b.RankRefs("current stock price of a ticker", 5)
	names := b.Rank("current stock price of a ticker", 5)
	if len(refs) != 5 || len(names) != 5 {
		t.Fatalf("RankRefs %v, Rank %v: want 5 each", refs, names)
	}
	for i := range refs {
		if refs[i].Name != names[i] || refs[i].Domain == "" {
			t.Errorf("rank %d: RankRefs %v, Rank %q", i+1, refs[i], names[i])
		}
	}
}
