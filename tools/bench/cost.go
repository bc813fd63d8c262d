package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
)

// This file is the per-call cost accounting of the latency runs: the CPU
// time and the allocations of the Caddy process, the CPU time of the HTTP
// echo upstream, and the TCP connections that upstream accepts, each read
// before and after a timed stretch and divided by the calls made in it.

// connCounter counts the TCP connections an http.Server accepts. Its
// handler answers the count with the connections opened to ask it left
// out: it closes the connection it answers on, so each asking takes a
// connection of its own, and it takes one off for each asking.
type connCounter struct {
	accepted atomic.Int64 // connections in state new
	asked    atomic.Int64 // requests to the handler
}

// connState is the http.Server's ConnState hook.
func (c *connCounter) connState(_ net.Conn, s http.ConnState) {
	if s == http.StateNew {
		c.accepted.Add(1)
	}
}

func (c *connCounter) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	asked := c.asked.Add(1)
	w.Header().Set("Connection", "close")
	fmt.Fprint(w, c.accepted.Load()-asked)
}

// connsPath is where the HTTP echo upstream serves its connCounter.
const connsPath = "/conns"

// connsClient asks for connection counts, a new connection each time (as
// connCounter requires), none shared with the clients being measured.
var connsClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}

// readConns is the count of connections the HTTP echo upstream at echoURL
// has accepted, other than those opened to read it.
func readConns(echoURL string) (int64, error) {
	resp, err := connsClient.Get(strings.TrimSuffix(echoURL, "/") + connsPath)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: %d %s", connsPath, resp.StatusCode, b)
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}

// meter reads the counters a stretch's cost is the difference of.
type meter struct {
	caddyPID, adminPort int    // the Caddy serving the routes
	echoPID             int    // the HTTP echo upstream
	echoURL             string // its URL
	// readAllocs is what one reading before and one after allocate in
	// Caddy with nothing between them (see calibrate): taken off every
	// stretch.
	readAllocs procs.Allocs
	// last is the latest reading after a stretch: its conns are all the
	// connections the upstream has accepted so far, from any client.
	last reading
}

// reading is the counters at one moment.
type reading struct {
	caddyCPU, echoCPU time.Duration
	allocs            procs.Allocs
	conns             int64
}

// before reads the counters at the start of a stretch, and after at its
// end. The CPU times are read nearest the stretch, so that the other
// readings' work (the admin endpoint's in Caddy, the counter's in the
// upstream) falls outside it.
func (m *meter) before() (reading, error) {
	var r reading
	var err error
	if r.allocs, err = procs.ReadAllocs(m.adminPort); err != nil {
		return r, err
	}
	if r.conns, err = readConns(m.echoURL); err != nil {
		return r, err
	}
	return r, m.readCPU(&r)
}

func (m *meter) after() (reading, error) {
	var r reading
	if err := m.readCPU(&r); err != nil {
		return r, err
	}
	var err error
	if r.conns, err = readConns(m.echoURL); err != nil {
		return r, err
	}
	if r.allocs, err = procs.ReadAllocs(m.adminPort); err != nil {
		return r, err
	}
	m.last = r
	return r, nil
}

func (m *meter) readCPU(r *reading) error {
	var err error
	if r.caddyCPU, err = procs.CPUTime(m.caddyPID); err != nil {
		return err
	}
	r.echoCPU, err = procs.CPUTime(m.echoPID)
	return err
}

// calibrate sets m.readAllocs: the least that a reading before and one
// after allocate in Caddy with no calls between them, over a few tries.
func (m *meter) calibrate() error {
	for i := range 5 {
		b, err := m.before()
		if err != nil {
			return err
		}
		a, err := m.after()
		if err != nil {
			return err
		}
		d := procs.Allocs{Mallocs: a.allocs.Mallocs - b.allocs.Mallocs, TotalAlloc: a.allocs.TotalAlloc - b.allocs.TotalAlloc}
		if i == 0 || d.Mallocs < m.readAllocs.Mallocs {
			m.readAllocs = d
		}
	}
	return nil
}

// cost is what the stretches of a route cost, summed; the per-call
// figures divide it by the calls.
type cost struct {
	caddyCPU, echoCPU  time.Duration
	mallocs, allocated int64
	conns              int64
}

// add adds the cost of the stretch between b and a.
func (c *cost) add(m *meter, b, a reading) {
	c.caddyCPU += a.caddyCPU - b.caddyCPU
	c.echoCPU += a.echoCPU - b.echoCPU
	c.mallocs += int64(a.allocs.Mallocs-b.allocs.Mallocs) - int64(m.readAllocs.Mallocs)
	c.allocated += int64(a.allocs.TotalAlloc-b.allocs.TotalAlloc) - int64(m.readAllocs.TotalAlloc)
	c.conns += a.conns - b.conns
}

// perCall is a route's cost per call. Which figures mean something
// depends on the route: the Caddy ones only when the route goes through
// Caddy (inCaddy), the upstream ones only when its upstream is the HTTP
// echo server (httpUpstream).
type perCall struct {
	inCaddy, httpUpstream bool
	caddyCPU              time.Duration // Caddy's CPU time
	allocs                float64       // heap objects allocated in Caddy
	allocBytes            float64       // bytes allocated in Caddy
	echoCPU               time.Duration // the HTTP echo upstream's CPU time
	conns                 float64       // connections the HTTP echo upstream accepted
}

// per divides c by calls for route r.
func (c cost) per(r route, calls int) perCall {
	p := perCall{inCaddy: r.viaCaddy, httpUpstream: r.upstream == "http"}
	if calls == 0 {
		return p
	}
	n := float64(calls)
	if p.inCaddy {
		p.caddyCPU = c.caddyCPU / time.Duration(calls)
		p.allocs = float64(c.mallocs) / n
		p.allocBytes = float64(c.allocated) / n
	}
	if p.httpUpstream {
		p.echoCPU = c.echoCPU / time.Duration(calls)
		p.conns = float64(c.conns) / n
	}
	return p
}

// String is the per-call figures for a progress line ("-" where they do
// not apply).
func (p perCall) String() string {
	caddy, upstream := "Caddy -", "upstream -"
	if p.inCaddy {
		caddy = fmt.Sprintf("Caddy %4d µs CPU, %5.0f allocs, %6.1f KB", p.caddyCPU.Microseconds(), p.allocs, p.allocBytes/1000)
	}
	if p.httpUpstream {
		upstream = fmt.Sprintf("upstream %4d µs CPU, %.3f new conns", p.echoCPU.Microseconds(), p.conns)
	}
	return caddy + " | " + upstream + " per call"
}
