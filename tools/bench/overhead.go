package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// overheadResult is the gateway's own work per call, measured in-process
// by the gateway package's BenchmarkCallDirect and BenchmarkCallExecuteTool:
// an echo call straight to a stateless HTTP upstream, and the same call
// through the gateway from a client connected in memory (no HTTP hop in
// front of the gateway).
type overheadResult struct {
	direct, gateway time.Duration
	command         string
}

var callBenchLine = regexp.MustCompile(`^BenchmarkCall(Direct|ExecuteTool)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op`)

func measureOverhead(root string, benchtime string) (overheadResult, error) {
	args := []string{"test", "-run", "^$", "-bench", "Call", "-benchtime", benchtime, "./gateway/"}
	out, err := runGo(root, args...)
	if err != nil {
		return overheadResult{}, err
	}
	r := overheadResult{command: "go " + strings.Join(args, " ")}
	for _, line := range strings.Split(out, "\n") {
		m := callBenchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		ns, _ := strconv.ParseFloat(m[2], 64)
		if m[1] == "Direct" {
			r.direct = time.Duration(ns)
		} else {
			r.gateway = time.Duration(ns)
		}
	}
	if r.direct == 0 || r.gateway == 0 {
		return r, fmt.Errorf("no call benchmark results in:\n%s", out)
	}
	return r, nil
}
