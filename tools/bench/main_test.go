//go:build bench

package main

import (
	"os"
	"path/filepath"
	"slices"
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
	checkLatency(t, rep)
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
	if o := rep.overhead; o.direct <= 0 || o.gateway <= 0 || o.directBytes <= 0 || o.gatewayBytes <= 0 || o.directAllocs <= 0 || o.gatewayAllocs <= 0 {
		t.Errorf("overhead = %+v", rep.overhead)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Benchmarks", "## Targets", "| http | execute_tool | 4 |", "| http | execute_tool (2025-11-25) | 4 |", "| http | reverse_proxy | 1 |",
		"new conns / call", "Caddy's CPU per call <= 800 µs (http upstream, passthrough (2025-11-25))", "allocated in Caddy per call <= 182.5 KB",
		"### Stateless against sessioned clients", "| stdio | passthrough | 4 |", "## Memory per client session", "## Context cost", "## Search",
		"### Where the time goes", "leaves out the inbound HTTP", "![bench-latency](bench-latency.svg)"} {
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

// wantRoutes are the routes every concurrency measures: upstream and
// label.
var wantRoutes = []string{
	"http direct", "http reverse_proxy",
	"http execute_tool", "http execute_tool (2025-11-25)", "http passthrough", "http passthrough (2025-11-25)",
	"stdio direct",
	"stdio execute_tool", "stdio execute_tool (2025-11-25)", "stdio passthrough", "stdio passthrough (2025-11-25)",
}

// checkLatency checks that every route ran at every concurrency without
// errors, and that its cost per call was measured where it applies: in
// Caddy for every route through it, at the HTTP upstream for every route
// to it.
func checkLatency(t *testing.T, rep *report) {
	t.Helper()
	got := map[int][]string{}
	for _, r := range rep.latency {
		key := r.upstream + " " + r.label()
		got[r.concurrency] = append(got[r.concurrency], key)
		if r.calls == 0 || r.errors > 0 || r.p50 <= 0 || r.p99 < r.p50 || r.perSecond <= 0 {
			t.Errorf("%s at %d: %d calls, %d errors (%s), p50 %s, p99 %s", key, r.concurrency, r.calls, r.errors, r.firstError, r.p50, r.p99)
		}
		c := r.cost
		if viaCaddy := r.route != "direct"; c.inCaddy != viaCaddy {
			t.Errorf("%s at %d: measured in Caddy %v, want %v", key, r.concurrency, c.inCaddy, viaCaddy)
		}
		if c.inCaddy && (c.caddyCPU <= 0 || c.allocs <= 0 || c.allocBytes <= 0) {
			t.Errorf("%s at %d: Caddy per call: %s CPU, %.1f allocs, %.0f bytes", key, r.concurrency, c.caddyCPU, c.allocs, c.allocBytes)
		}
		if c.httpUpstream != (r.upstream == "http") {
			t.Errorf("%s at %d: measured at the HTTP upstream %v", key, r.concurrency, c.httpUpstream)
		}
		// Every client keeps its connections: far fewer new ones than
		// calls, on every route.
		if c.httpUpstream && (c.echoCPU <= 0 || c.conns < 0 || c.conns > 0.5) {
			t.Errorf("%s at %d: upstream per call: %s CPU, %.3f new connections", key, r.concurrency, c.echoCPU, c.conns)
		}
	}
	for _, c := range []int{1, 4} {
		if !slices.Equal(got[c], wantRoutes) {
			t.Errorf("routes at %d clients: %q, want %q", c, got[c], wantRoutes)
		}
	}
	// The counter counts: the gateway and the direct clients connected.
	if rep.echoConns <= 0 {
		t.Errorf("the HTTP upstream accepted %d connections", rep.echoConns)
	}
	if rep.readAllocs.Mallocs == 0 {
		t.Errorf("reading Caddy's counters allocates nothing: %+v", rep.readAllocs)
	}
}
