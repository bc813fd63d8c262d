package main

import "testing"

// TestRetrievalBenchmarkRuns runs the benchmark end to end on the short
// task set: real catalog server, real Caddy, MCP over loopback.
func TestRetrievalBenchmarkRuns(t *testing.T) {
	if err := run("short", "", true); err != nil {
		t.Fatal(err)
	}
}
