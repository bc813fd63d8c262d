package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A report's command line names the files of the checkout relative to
// tools/, where it runs, not by the absolute path of one machine.
func TestRelativeArgs(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(wd)
	got := relativeArgs([]string{"-out", filepath.Join(root, "docs", "benchmarks.md"), "-rounds", "3", "/elsewhere/x.md"})
	want := []string{"-out", filepath.Join("..", "docs", "benchmarks.md"), "-rounds", "3", "/elsewhere/x.md"}
	if !slices.Equal(got, want) {
		t.Errorf("relativeArgs = %q, want %q", got, want)
	}
}
