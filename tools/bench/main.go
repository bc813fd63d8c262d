// Command bench measures what the gateway costs beside going direct, and
// writes docs/benchmarks.md with its tables and charts:
//
//   - execute_tool and passthrough tools/call through Caddy and the gateway,
//     by clients of both protocol eras (2026-07-28, stateless; 2025-11-25,
//     sessioned), against the same upstream called directly and, over
//     HTTP, through a plain Caddy reverse_proxy, over HTTP and stdio, at
//     several concurrencies: p50/p99 latency, calls per second, ratios,
//     and the cost per call: Caddy's CPU time and allocations, the HTTP
//     upstream's CPU time and the connections it accepts (cost.go);
//   - Caddy's memory per idle client session, with 1,000 and 10,000 open;
//   - tokens in the model's context, meta mode against passthrough, on the
//     LiveMCPBench catalog and a generated 10k-tool catalog;
//   - search latency at 1k/10k/100k tools (the search package's benchmarks).
//
// It starts every process it needs on loopback (Caddy built from
// cmd/caddy, the upstreams) and stops them all when it ends.
//
//	go run ./bench                 # the full run, ~5 minutes
//	go run ./bench -quick -out /tmp/b.md
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	var (
		out         = flag.String("out", "docs/benchmarks.md", "the report to write (charts go beside it); relative to the repository")
		quick       = flag.Bool("quick", false, "a short run with small counts, to check that everything works")
		perPoint    = flag.Duration("duration", 3*time.Second, "how long each route is measured at each concurrency")
		rounds      = flag.Int("rounds", 3, "how many turns the routes take at each concurrency")
		concurrency = flag.String("concurrency", "1,16,64,256", "concurrent clients")
		sessions    = flag.String("sessions", "1000,10000", "idle sessions to measure memory with")
		catalogSize = flag.Int("catalog", 10000, "tools in the generated catalog")
		searchRuns  = flag.Int("search-queries", 2000, "queries per search benchmark")
		caddyGOGC   = flag.String("caddy-gogc", "", "run Caddy, and only Caddy, with this GOGC (default: Go's, 100), to measure what the garbage collector costs per call")
		echoHTTP    = flag.String("serve-echo-http", "", "internal: serve the echo upstream over HTTP at this address")
		echoStdio   = flag.Bool("serve-echo-stdio", false, "internal: serve the echo upstream over stdio")
	)
	flag.Parse()
	switch {
	case *echoHTTP != "":
		log.Fatal(serveEchoHTTP(*echoHTTP))
	case *echoStdio:
		if err := serveEchoStdio(); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *quick {
		// Small counts, for the flags not given.
		set := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
		for name, value := range map[string]string{"duration": "300ms", "rounds": "1", "concurrency": "1,16", "sessions": "300", "catalog": "1000", "search-queries": "100"} {
			if !set[name] {
				flag.Set(name, value)
			}
		}
	}
	cfg := config{out: *out, perPoint: *perPoint, rounds: *rounds, catalogSize: *catalogSize, searchRuns: *searchRuns, quick: *quick}
	if *caddyGOGC != "" {
		if _, err := strconv.Atoi(*caddyGOGC); err != nil && *caddyGOGC != "off" {
			log.Fatalf("-caddy-gogc: %q is neither a number nor off", *caddyGOGC)
		}
		cfg.caddyEnv = []string{"GOGC=" + *caddyGOGC}
	}
	var err error
	if cfg.concurrency, err = ints(*concurrency); err != nil {
		log.Fatalf("-concurrency: %v", err)
	}
	if cfg.sessions, err = ints(*sessions); err != nil {
		log.Fatalf("-sessions: %v", err)
	}
	cfg.command = "go run ./bench " + strings.Join(relativeArgs(os.Args[1:]), " ")
	if _, err := run(cfg, func(s string) { log.Print(s) }); err != nil {
		log.Fatal(err)
	}
}

// relativeArgs are args with each absolute path below the working
// directory's parent (the repository, run from tools/) written relative to
// the working directory, as the report's command line shows them: a
// report says how to make it again on any checkout, not where one was.
func relativeArgs(args []string) []string {
	wd, err := os.Getwd()
	if err != nil {
		return args
	}
	root := filepath.Dir(wd)
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if filepath.IsAbs(a) && strings.HasPrefix(a, root+string(filepath.Separator)) {
			if rel, err := filepath.Rel(wd, a); err == nil {
				out[i] = rel
			}
		}
	}
	return out
}

// config is what a run measures and where it writes.
type config struct {
	out, command string
	perPoint     time.Duration
	rounds       int
	concurrency  []int
	sessions     []int
	catalogSize  int
	searchRuns   int
	quick        bool
	caddyEnv     []string // more environment for the Caddy processes alone
}

// run measures everything and writes the report.
func run(cfg config, progress func(string)) (*report, error) {
	rep := &report{command: strings.TrimSpace(cfg.command), started: time.Now(), perPoint: cfg.perPoint, rounds: cfg.rounds}
	return rep, rep.measure(cfg, progress)
}

// measure fills rep in and writes it to cfg.out.
func (rep *report) measure(cfg config, progress func(string)) error {
	e, err := newEnv(cfg.caddyEnv)
	if err != nil {
		return err
	}
	defer e.close()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(stop)
	go func() {
		if _, ok := <-stop; ok {
			e.close()
			os.Exit(1)
		}
	}()

	progress("latency and throughput")
	echoURL, echo, err := e.startEchoHTTP()
	if err != nil {
		return err
	}
	upstreams := []string{"upstream http " + echoURL, fmt.Sprintf("upstream stdio {\n\tcommand %s -serve-echo-stdio\n}", e.self)}
	gw, err := e.startCaddy("gateway", gatewayBlock("/meta", "meta", "meta", upstreams)+gatewayBlock("/pt", "pt", "passthrough", upstreams)+reverseProxyBlock("/rp/", echoURL))
	if err != nil {
		return err
	}
	progress(fmt.Sprintf("gateway at %s, Caddy admin (pprof) at 127.0.0.1:%d", gw.url("/"), gw.adminPort))
	m := &meter{caddyPID: gw.Cmd.Process.Pid, adminPort: gw.adminPort, echoPID: echo.Cmd.Process.Pid, echoURL: echoURL}
	if rep.latency, err = measureLatency(routes(e.self, echoURL, gw), m, cfg.concurrency, cfg.perPoint, cfg.rounds, progress); err != nil {
		return err
	}
	rep.readAllocs, rep.echoConns = m.readAllocs, m.last.conns

	progress("memory per session")
	// A Caddy of its own, so that the latency runs' memory is not in its
	// baseline.
	gw.Stop()
	memGW, err := e.startCaddy("memory", gatewayBlock("/meta", "meta", "meta", upstreams))
	if err != nil {
		return err
	}
	if rep.memory, err = measureMemory(memGW, memGW.url("/meta"), cfg.sessions, progress); err != nil {
		return err
	}
	memGW.Stop()

	progress("context cost")
	lmb, err := liveMCPBenchCatalog()
	if err != nil {
		return err
	}
	catalogs := []catalog{lmb, generatedCatalog(cfg.catalogSize)}
	addr, stopCatalogs, err := serveCatalogs(catalogs)
	if err != nil {
		return err
	}
	defer stopCatalogs()
	catalogGW, err := e.startCaddy("catalogs", catalogSite(catalogs, addr))
	if err != nil {
		return err
	}
	for _, c := range catalogs {
		t, err := measureTokens(catalogGW, c)
		if err != nil {
			return err
		}
		progress(fmt.Sprintf("%s: tools/list %d tokens in meta mode, %d in passthrough", t.catalog, t.metaList, t.passthroughList))
		rep.tokens = append(rep.tokens, t)
	}

	progress("the gateway's own work per call")
	benchtime := "3s"
	if cfg.quick {
		benchtime = "200x"
	}
	if rep.overhead, err = measureOverhead(e.root, benchtime); err != nil {
		return err
	}

	progress("search")
	buildTimes := 5
	if cfg.quick {
		buildTimes = 1
	}
	if rep.search, rep.searchBy, err = measureSearch(e.root, buildTimes, cfg.searchRuns); err != nil {
		return err
	}

	out := cfg.out
	if !filepath.IsAbs(out) {
		out = filepath.Join(e.root, out)
	}
	dir := filepath.Dir(out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rep.charts = []string{"bench-latency.svg", "bench-throughput.svg"}
	if err := chart(rep.latency, dir, rep.charts[0], "p50 latency of a call", "p50 latency (µs)",
		func(r latencyResult) float64 { return float64(r.p50.Microseconds()) }, true); err != nil {
		return err
	}
	if err := chart(rep.latency, dir, rep.charts[1], "throughput", "calls per second",
		func(r latencyResult) float64 { return r.perSecond }, false); err != nil {
		return err
	}
	rep.took = time.Since(rep.started)
	var b bytes.Buffer
	rep.write(&b)
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		return err
	}
	progress("wrote " + out)
	return nil
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive number", f)
		}
		out = append(out, n)
	}
	return out, nil
}
