package e2e

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// caddyGoroutines reads the number of goroutines in the Caddy process from
// its admin endpoint's /debug/pprof/goroutine.
func caddyGoroutines(t *testing.T, adminPort int) int {
	t.Helper()
	body := adminGet(t, adminPort, "/debug/pprof/goroutine?debug=1")
	first, _, _ := strings.Cut(body, "\n")
	n, err := strconv.Atoi(strings.TrimPrefix(first, "goroutine profile: total "))
	if err != nil {
		t.Fatalf("unexpected goroutine profile header %q", first)
	}
	return n
}

// caddyHeapInUse is the Caddy process's live heap, in bytes: the in-use
// space of its heap profile, which /debug/pprof/heap?gc=1 takes right
// after a collection (so garbage made since does not count, as it would
// in MemStats.HeapAlloc). It collects twice: sync.Pool caches (buffers
// and the like) survive one collection.
func caddyHeapInUse(t *testing.T, adminPort int) uint64 {
	t.Helper()
	adminGet(t, adminPort, "/debug/pprof/heap?gc=1")
	p, err := profile.Parse(strings.NewReader(adminGet(t, adminPort, "/debug/pprof/heap?gc=1")))
	if err != nil {
		t.Fatalf("parsing Caddy's heap profile: %v", err)
	}
	index := -1
	for i, st := range p.SampleType {
		if st.Type == "inuse_space" {
			index = i
		}
	}
	if index < 0 {
		t.Fatal("Caddy's heap profile has no inuse_space")
	}
	var total int64
	for _, s := range p.Sample {
		total += s.Value[index]
	}
	return uint64(total)
}

// settledGoroutines waits until Caddy's goroutine count is at most limit,
// and returns the last count read (above limit if it never got there).
func settledGoroutines(t *testing.T, adminPort, limit int, within time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		n := caddyGoroutines(t, adminPort)
		if n <= limit || time.Now().After(deadline) {
			return n
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func adminGet(t *testing.T, adminPort int, path string) string {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d%s", adminPort, path))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET admin %s: %d %v\n%s", path, resp.StatusCode, err, b)
	}
	return string(b)
}
