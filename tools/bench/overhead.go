package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// overheadResult is the gateway's work per call without the HTTP hop in
// front of it, measured in-process by the gateway package's
// BenchmarkCallDirect and BenchmarkCallExecuteTool: an echo call straight
// to a stateless HTTP upstream, and the same call through the gateway from
// a client connected in memory. Each is the wall time of one call, made
// back to back, and what the whole process (client, gateway, upstream)
// allocates for it.
type overheadResult struct {
	direct, gateway             time.Duration
	directBytes, gatewayBytes   float64 // allocated per call
	directAllocs, gatewayAllocs float64
	command                     string
}

var callBenchLine = regexp.MustCompile(`^BenchmarkCall(Direct|ExecuteTool)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op\s+([\d.]+) B/op\s+([\d.]+) allocs/op`)

func measureOverhead(root string, benchtime string) (overheadResult, error) {
	args := []string{"test", "-run", "^$", "-bench", "Call", "-benchtime", benchtime, "-benchmem", "./gateway/"}
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
		bytes, _ := strconv.ParseFloat(m[3], 64)
		allocs, _ := strconv.ParseFloat(m[4], 64)
		if m[1] == "Direct" {
			r.direct, r.directBytes, r.directAllocs = time.Duration(ns), bytes, allocs
		} else {
			r.gateway, r.gatewayBytes, r.gatewayAllocs = time.Duration(ns), bytes, allocs
		}
	}
	if r.direct == 0 || r.gateway == 0 {
		return r, fmt.Errorf("no call benchmark results in:\n%s", out)
	}
	return r, nil
}
