package search

import "testing"

// TestAblationParts checks that every signal, part reader and word rule
// can be switched off by its name, that the names are distinct, and that
// an unknown name is refused.
func TestAblationParts(t *testing.T) {
	known := make(map[string]bool)
	for _, p := range ablationParts {
		if known[p.name] {
			t.Errorf("%q twice in ablationParts", p.name)
		}
		known[p.name] = true
	}
	var names []string
	for _, s := range signals {
		names = append(names, ablationName(s.name()))
	}
	for _, r := range partReaders {
		names = append(names, r.name)
	}
	for _, r := range wordRules {
		names = append(names, ablationName(r.name))
	}
	for _, n := range names {
		if !known[n] {
			t.Errorf("%q is not in ablationParts: it cannot be switched off", n)
		}
	}
	if off != nil {
		t.Fatalf("built with parts switched off (%q): the other tests measure a ranking short of them", switchedOff)
	}
	if got := parseSwitchedOff("meaning, typo"); !got["meaning"] || !got["typo"] || len(got) != 2 {
		t.Errorf("parseSwitchedOff(meaning, typo) = %v", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("parseSwitchedOff accepted a name that is no part")
		}
	}()
	parseSwitchedOff("meanings")
}
