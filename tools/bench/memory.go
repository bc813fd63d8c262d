package main

import (
	"context"
	"fmt"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// memoryResult is Caddy's memory with some idle client sessions open.
type memoryResult struct {
	sessions   int
	heap, rss  uint64  // live heap (see procs.LiveHeap) and resident set
	perSession float64 // heap bytes per session over the baseline
	rssPer     float64 // resident bytes per session over the baseline
}

// measureMemory opens idle client sessions on the gateway at url (each
// initialized, with its event stream open, as a connected client keeps
// it) until each count in counts is reached, and reads Caddy's memory at
// the start and at each count. The first result is the baseline (0
// sessions, after a warm-up).
func measureMemory(gw *caddy, url string, counts []int, progress func(string)) ([]memoryResult, error) {
	read := func(n int) (memoryResult, error) {
		heap, err := procs.LiveHeap(gw.adminPort)
		if err != nil {
			return memoryResult{}, err
		}
		rss, err := procs.RSS(gw.Cmd.Process.Pid)
		return memoryResult{sessions: n, heap: heap, rss: rss}, err
	}
	connect := route{name: "idle", upstream: "meta", connect: func(ctx context.Context) (*mcp.ClientSession, error) {
		return httpSessionAt(ctx, url, sessionedVersion)
	}}
	warm, err := openSessions(context.Background(), connect, 100)
	if err != nil {
		return nil, err
	}
	closeSessions(warm)
	base, err := read(0)
	if err != nil {
		return nil, err
	}
	results := []memoryResult{base}
	var open []*mcp.ClientSession
	defer func() { closeSessions(open) }()
	for _, n := range counts {
		more, err := openSessions(context.Background(), connect, n-len(open))
		if err != nil {
			return nil, err
		}
		open = append(open, more...)
		r, err := read(n)
		if err != nil {
			return nil, err
		}
		r.perSession = float64(int64(r.heap)-int64(base.heap)) / float64(n)
		r.rssPer = float64(int64(r.rss)-int64(base.rss)) / float64(n)
		results = append(results, r)
		progress(fmt.Sprintf("%6d idle sessions: live heap %.1f MiB (%.1f KiB each), RSS %.1f MiB (%.1f KiB each)",
			n, mib(r.heap), r.perSession/1024, mib(r.rss), r.rssPer/1024))
	}
	return results, nil
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
