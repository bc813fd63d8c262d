//go:build bench

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary be the echo upstream too, as the bench
// program is when it runs itself (see env.self).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "-serve-echo-stdio":
			if err := serveEchoStdio(); err != nil {
				os.Exit(1)
			}
			os.Exit(0)
		case "-serve-echo-http":
			if err := serveEchoHTTP(os.Args[2]); err != nil {
				os.Exit(1)
			}
		}
	}
	os.Exit(m.Run())
}

// TestQuickRun runs the whole benchmark with small counts and checks that
// every part measured something real and the report says so.
func TestQuickRun(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "benchmarks.md")
	rep, err := run(config{
		out: out, command: "go run ./bench -quick", perPoint: 200 * time.Millisecond, rounds: 1,
		concurrency: []int{1, 4}, sessions: []int{300}, catalogSize: 500, searchRuns: 50, quick: true,
	}, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.latency) != 12 {
		t.Errorf("%d latency results, want 6 routes x 2 concurrencies", len(rep.latency))
	}
	for _, r := range rep.latency {
		if r.calls == 0 || r.errors > 0 || r.p50 <= 0 || r.p99 < r.p50 || r.perSecond <= 0 {
			t.Errorf("%s/%s at %d: %d calls, %d errors (%s), p50 %s, p99 %s", r.upstream, r.route, r.concurrency, r.calls, r.errors, r.firstError, r.p50, r.p99)
		}
	}
	// 300 sessions: enough that their memory (~25 KiB each) stands well
	// above the heap profile's sampling noise (about half a MiB).
	if len(rep.memory) != 2 || rep.memory[1].sessions != 300 || rep.memory[1].perSession <= 0 {
		t.Errorf("memory = %+v", rep.memory)
	}
	if len(rep.tokens) != 2 {
		t.Fatalf("tokens = %+v", rep.tokens)
	}
	for _, tok := range rep.tokens {
		if tok.metaList <= 0 || tok.passthroughList <= 10*tok.metaList || tok.discoverDomains <= 0 || tok.discoverSearch <= 0 || tok.getSchema <= 0 {
			t.Errorf("tokens = %+v", tok)
		}
	}
	if len(rep.search) != 3 || rep.search[2].tools != 100_000 || rep.search[2].p50us <= 0 {
		t.Errorf("search = %+v", rep.search)
	}
	if rep.overhead.direct <= 0 || rep.overhead.gateway <= 0 {
		t.Errorf("overhead = %+v", rep.overhead)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Benchmarks", "## Targets", "| http | execute_tool | 4 |", "## Memory per client session", "## Context cost", "## Search", "### Where the time goes", "![bench-latency](bench-latency.svg)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	for _, c := range rep.charts {
		svg, err := os.ReadFile(filepath.Join(dir, c))
		if err != nil || !strings.Contains(string(svg), "<svg") || !strings.Contains(string(svg), "execute_tool") {
			t.Errorf("chart %s: %v, %d bytes", c, err, len(svg))
		}
	}
}
