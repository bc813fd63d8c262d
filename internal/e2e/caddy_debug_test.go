package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
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

// caddyHeapInUse reads the Caddy process's in-use heap bytes from its
// admin endpoint's /debug/vars, after forcing a collection through
// /debug/pprof/heap?gc=1.
func caddyHeapInUse(t *testing.T, adminPort int) uint64 {
	t.Helper()
	adminGet(t, adminPort, "/debug/pprof/heap?gc=1")
	var vars struct {
		Memstats struct {
			HeapInuse uint64
		}
	}
	if err := json.Unmarshal([]byte(adminGet(t, adminPort, "/debug/vars")), &vars); err != nil {
		t.Fatal(err)
	}
	return vars.Memstats.HeapInuse
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
