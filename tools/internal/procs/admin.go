package procs

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// AdminGet fetches path from the Caddy admin endpoint on the loopback
// port.
func AdminGet(adminPort int, path string) (string, error) {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d%s", adminPort, path))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET admin %s: %d %s", path, resp.StatusCode, b)
	}
	return string(b), nil
}

// Goroutines is the number of goroutines in the Caddy process, from its
// admin endpoint's /debug/pprof/goroutine.
func Goroutines(adminPort int) (int, error) {
	body, err := AdminGet(adminPort, "/debug/pprof/goroutine?debug=1")
	if err != nil {
		return 0, err
	}
	first, _, _ := strings.Cut(body, "\n")
	n, err := strconv.Atoi(strings.TrimPrefix(first, "goroutine profile: total "))
	if err != nil {
		return 0, fmt.Errorf("unexpected goroutine profile header %q", first)
	}
	return n, nil
}

// GoroutinesExcept is the number of goroutines in the Caddy process whose
// stacks hold none of the functions named in except (for instance
// "net/http.(*persistConn)": the idle keep-alive connections a client
// pool keeps for a while, by design).
func GoroutinesExcept(adminPort int, except ...string) (int, error) {
	body, err := AdminGet(adminPort, "/debug/pprof/goroutine?debug=1")
	if err != nil {
		return 0, err
	}
	// Records: a line "N @ addr addr ...", then a line "#\taddr\tfunc+off\tfile:line"
	// per frame.
	total, count, skip := 0, 0, false
	flush := func() {
		if !skip {
			total += count
		}
		count, skip = 0, false
	}
	for _, line := range strings.Split(body, "\n") {
		if n, _, ok := strings.Cut(line, " @ "); ok {
			if v, err := strconv.Atoi(n); err == nil {
				flush()
				count = v
				continue
			}
		}
		for _, e := range except {
			if strings.HasPrefix(line, "#") && strings.Contains(line, e) {
				skip = true
			}
		}
	}
	flush()
	return total, nil
}

// LiveHeap is the Caddy process's live heap, in bytes: the in-use space of
// its heap profile, which /debug/pprof/heap?gc=1 takes right after a
// collection (so garbage made since does not count, as it would in
// MemStats.HeapAlloc). It collects twice: sync.Pool caches (buffers and
// the like) survive one collection.
func LiveHeap(adminPort int) (uint64, error) {
	if _, err := AdminGet(adminPort, "/debug/pprof/heap?gc=1"); err != nil {
		return 0, err
	}
	body, err := AdminGet(adminPort, "/debug/pprof/heap?gc=1")
	if err != nil {
		return 0, err
	}
	p, err := profile.Parse(strings.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("parsing Caddy's heap profile: %v", err)
	}
	index := -1
	for i, st := range p.SampleType {
		if st.Type == "inuse_space" {
			index = i
		}
	}
	if index < 0 {
		return 0, fmt.Errorf("Caddy's heap profile has no inuse_space")
	}
	var total int64
	for _, s := range p.Sample {
		total += s.Value[index]
	}
	return uint64(total), nil
}

// RSS is a process's resident set size in bytes, from /proc.
func RSS(pid int) (uint64, error) {
	b, err := readFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(b, "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for process %d", pid)
}

// Allocs are the Go runtime's cumulative allocation counters of a
// process (runtime.MemStats' Mallocs and TotalAlloc).
type Allocs struct {
	Mallocs    uint64 // heap objects allocated
	TotalAlloc uint64 // bytes allocated for heap objects
}

// ReadAllocs reads the Caddy process's allocation counters from the
// expvar memstats its admin endpoint serves at /debug/vars. The counters
// are read inside the request (runtime.ReadMemStats): what the admin
// endpoint allocates to answer it, before the reading and after, falls
// on either side of it.
func ReadAllocs(adminPort int) (Allocs, error) {
	body, err := AdminGet(adminPort, "/debug/vars")
	if err != nil {
		return Allocs{}, err
	}
	var vars struct {
		Memstats *Allocs `json:"memstats"`
	}
	if err := json.Unmarshal([]byte(body), &vars); err != nil {
		return Allocs{}, fmt.Errorf("Caddy's /debug/vars: %v", err)
	}
	if vars.Memstats == nil {
		return Allocs{}, fmt.Errorf("Caddy's /debug/vars has no memstats")
	}
	return *vars.Memstats, nil
}
