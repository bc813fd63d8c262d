package search

import "testing"

// needsData skips a test of the embedded data in a lean build, which
// carries none (see embedded_lean.go).
func needsData(t *testing.T) {
	t.Helper()
	if leanBuild {
		t.Skip("a lean build carries no glossary")
	}
}
