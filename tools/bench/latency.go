package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A route is one way to call the echo tool: straight to the upstream,
// through a plain Caddy reverse proxy, or through the gateway with
// execute_tool or with a passthrough tools/call, by a client of one
// protocol era.
type route struct {
	name     string // "direct", "reverse_proxy", "execute_tool", "passthrough"
	upstream string // "http", "stdio"
	// era is the protocol revision the client asks for: "" for the
	// newest (statelessVersion), or sessionedVersion.
	era string
	// viaCaddy: the calls pass through the Caddy process, whose cost per
	// call is measured.
	viaCaddy bool
	// connect opens a client session for the route.
	connect func(context.Context) (*mcp.ClientSession, error)
	// shared: all workers use one session (a stdio upstream called
	// directly is one process on one pipe).
	shared bool
	params *mcp.CallToolParams
}

// statelessVersion is the protocol revision the go-sdk client speaks by
// default, and the gateway with it: no initialize, no session.
const statelessVersion = "2026-07-28"

// sessionedVersion is the older revision the gateway serves on the same
// endpoint: an initialize handshake, and a session the server keeps
// (Mcp-Session-Id). Only such clients hold a session on the gateway.
const sessionedVersion = "2025-11-25"

// routeLabel names a route in progress lines and the report: its name,
// with the era after it when the client is not of the newest.
func routeLabel(name, era string) string {
	if era == "" {
		return name
	}
	return name + " (" + era + ")"
}

func (r route) label() string { return routeLabel(r.name, r.era) }

// latencyResult is what a route did at one concurrency.
type latencyResult struct {
	route, upstream string
	era             string // as route.era
	concurrency     int
	p50, p99        time.Duration
	perSecond       float64
	calls, errors   int
	firstError      string
	cost            perCall
}

func (r latencyResult) label() string { return routeLabel(r.route, r.era) }

// benchHTTPClient is every benchmark client's HTTP client: enough idle
// connections kept for 256 workers, so no run pays for new connections.
var benchHTTPClient = &http.Client{Transport: readToTheEnd{&http.Transport{MaxIdleConns: 2048, MaxIdleConnsPerHost: 1024, IdleConnTimeout: time.Minute}}}

// readToTheEnd sends each POST with a context no call cancels. The go-sdk
// client cancels a call's request as soon as the call has its answer,
// while an event-stream answer's last chunk may be unread; net/http then
// drops the connection and the next call dials. The gateway reads its
// upstreams' answers to the end (gateway/keepalive.go); the benchmark's
// clients do the same, so that no route pays for reconnects its client
// causes. (The benchmark never cancels a call: its calls end by answer.)
type readToTheEnd struct{ base http.RoundTripper }

func (t readToTheEnd) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost {
		req = req.WithContext(context.WithoutCancel(req.Context()))
	}
	return t.base.RoundTrip(req)
}

// httpSession connects to url in the newest revision both sides speak
// (2026-07-28 with the gateway: stateless, no session on the server).
func httpSession(ctx context.Context, url string) (*mcp.ClientSession, error) {
	return httpSessionAt(ctx, url, "")
}

// httpSessionAt connects to url asking for protocol version (the newest,
// if empty); "2025-11-25" makes an older client, with an initialize
// handshake and a session the server keeps.
func httpSessionAt(ctx context.Context, url, version string) (*mcp.ClientSession, error) {
	return mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: benchHTTPClient}, &mcp.ClientSessionOptions{ProtocolVersion: version})
}

func stdioSession(ctx context.Context, self string) (*mcp.ClientSession, error) {
	return mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx,
		&mcp.CommandTransport{Command: exec.Command(self, "-serve-echo-stdio")}, nil)
}

// routes are the ways to call the echo tool, given the echo upstream's
// URL and a Caddy serving, in front of it, a reverse proxy to its HTTP
// form at /rp/ and the gateway with execute_tool at /meta and passthrough
// at /pt. The gateway routes are taken by clients of both eras.
func routes(self, echoURL string, gw *caddy) []route {
	echo := func(name string) *mcp.CallToolParams {
		return &mcp.CallToolParams{Name: name, Arguments: map[string]any{"text": "hello"}}
	}
	execute := func(tool string) *mcp.CallToolParams {
		return &mcp.CallToolParams{Name: "execute_tool", Arguments: map[string]any{"tool_name": tool, "arguments": map[string]any{"text": "hello"}}}
	}
	viaCaddy := func(path, era string) func(context.Context) (*mcp.ClientSession, error) {
		return func(ctx context.Context) (*mcp.ClientSession, error) { return httpSessionAt(ctx, gw.url(path), era) }
	}
	rs := []route{
		{name: "direct", upstream: "http", params: echo("echo"),
			connect: func(ctx context.Context) (*mcp.ClientSession, error) { return httpSession(ctx, echoURL) }},
		{name: "reverse_proxy", upstream: "http", params: echo("echo"), viaCaddy: true, connect: viaCaddy("/rp/", "")},
		{name: "direct", upstream: "stdio", params: echo("echo"), shared: true,
			connect: func(ctx context.Context) (*mcp.ClientSession, error) { return stdioSession(ctx, self) }},
	}
	for _, up := range []string{"http", "stdio"} {
		for _, era := range []string{"", sessionedVersion} {
			rs = append(rs, route{name: "execute_tool", upstream: up, era: era, params: execute(up + ".echo"), viaCaddy: true, connect: viaCaddy("/meta", era)})
		}
		for _, era := range []string{"", sessionedVersion} {
			rs = append(rs, route{name: "passthrough", upstream: up, era: era, params: echo(up + "_echo"), viaCaddy: true, connect: viaCaddy("/pt", era)})
		}
	}
	// In report order: per upstream, the floor routes, then the gateway's.
	slices.SortStableFunc(rs, func(a, b route) int { return strings.Compare(a.upstream, b.upstream) })
	return rs
}

// openSessions opens n sessions for r (one, if r's workers share it).
func openSessions(ctx context.Context, r route, n int) ([]*mcp.ClientSession, error) {
	if r.shared {
		n = 1
	}
	sessions := make([]*mcp.ClientSession, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for i := range sessions {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			sessions[i], errs[i] = r.connect(ctx)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		closeSessions(sessions)
		return nil, fmt.Errorf("%s %s: opening sessions: %w", r.label(), r.upstream, err)
	}
	return sessions, nil
}

func closeSessions(sessions []*mcp.ClientSession) {
	var wg sync.WaitGroup
	for _, s := range sessions {
		if s != nil {
			wg.Add(1)
			go func() { defer wg.Done(); s.Close() }()
		}
	}
	wg.Wait()
}

// load is the calls a route made in one timed stretch.
type load struct {
	latencies []time.Duration
	elapsed   time.Duration
	errors    int
	first     string
}

// runLoad has workers workers call r's tool back to back for d, each on
// its own session of sessions (or all on the one shared session).
func runLoad(r route, sessions []*mcp.ClientSession, workers int, d time.Duration) load {
	var mu sync.Mutex
	var out load
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for w := range workers {
		cs := sessions[w%len(sessions)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat := make([]time.Duration, 0, 1024)
			errs, first := 0, ""
			for time.Now().Before(deadline) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				// The SDK writes into the params it sends (_meta): each
				// call gets its own copy.
				params := *r.params
				params.Meta = nil
				t0 := time.Now()
				res, err := cs.CallTool(ctx, &params)
				took := time.Since(t0)
				cancel()
				if err == nil && res.IsError {
					err = fmt.Errorf("tool error: %v", res.Content)
				}
				if err != nil {
					if errs == 0 {
						first = err.Error()
					}
					errs++
					continue
				}
				lat = append(lat, took)
			}
			mu.Lock()
			out.latencies = append(out.latencies, lat...)
			out.errors += errs
			if out.first == "" {
				out.first = first
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	out.elapsed = time.Since(start)
	return out
}

// measureLatency runs every route at every concurrency. For each
// concurrency the routes take turns, rounds times, in a rotating order, so
// that a noisy moment on a shared machine falls on all of them alike; a
// route's figures pool its rounds. m reads the counters before and after
// each turn, for the routes' cost per call.
func measureLatency(rs []route, m *meter, concurrencies []int, perPoint time.Duration, rounds int, progress func(string)) ([]latencyResult, error) {
	var results []latencyResult
	if err := m.calibrate(); err != nil {
		return nil, err
	}
	progress(fmt.Sprintf("reading Caddy's counters allocates %d objects, %d bytes, taken off each turn", m.readAllocs.Mallocs, m.readAllocs.TotalAlloc))
	for _, c := range concurrencies {
		rc, err := measureAt(rs, m, c, perPoint, rounds)
		if err != nil {
			return nil, err
		}
		for i, res := range rc {
			progress(fmt.Sprintf("%-5s %-27s c=%-3d p50 %8s p99 %8s %6.0f calls/s | %s", rs[i].upstream, rs[i].label(), c,
				res.p50.Round(time.Microsecond), res.p99.Round(time.Microsecond), res.perSecond, res.cost))
		}
		results = append(results, rc...)
	}
	return results, nil
}

// measureAt runs every route at concurrency c (see measureLatency): a
// result per route, in the order of rs.
func measureAt(rs []route, m *meter, c int, perPoint time.Duration, rounds int) ([]latencyResult, error) {
	sessions := make([][]*mcp.ClientSession, len(rs))
	defer func() {
		for _, s := range sessions {
			closeSessions(s)
		}
	}()
	for i, r := range rs {
		s, err := openSessions(context.Background(), r, c)
		if err != nil {
			return nil, err
		}
		sessions[i] = s
		runLoad(r, s, c, perPoint/10) // warm up: connections, first-call paths
	}
	pooled := make([]load, len(rs))
	costs := make([]cost, len(rs))
	for round := range rounds {
		for k := range rs {
			i := (k + round) % len(rs)
			before, err := m.before()
			if err != nil {
				return nil, err
			}
			l := runLoad(rs[i], sessions[i], c, perPoint/time.Duration(rounds))
			after, err := m.after()
			if err != nil {
				return nil, err
			}
			costs[i].add(m, before, after)
			p := &pooled[i]
			p.latencies = append(p.latencies, l.latencies...)
			p.elapsed += l.elapsed
			p.errors += l.errors
			if p.first == "" {
				p.first = l.first
			}
		}
	}
	results := make([]latencyResult, len(rs))
	for i, r := range rs {
		results[i] = summarize(r, c, pooled[i])
		results[i].cost = costs[i].per(r, results[i].calls)
	}
	return results, nil
}

func summarize(r route, c int, l load) latencyResult {
	res := latencyResult{route: r.name, upstream: r.upstream, era: r.era, concurrency: c, calls: len(l.latencies), errors: l.errors, firstError: l.first}
	if len(l.latencies) > 0 {
		slices.Sort(l.latencies)
		res.p50 = l.latencies[len(l.latencies)/2]
		res.p99 = l.latencies[len(l.latencies)*99/100]
		res.perSecond = float64(len(l.latencies)) / l.elapsed.Seconds()
	}
	return res
}
