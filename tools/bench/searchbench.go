package main

import (
	"bufio"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// searchResult is the search benchmarks' figures at one catalog size.
type searchResult struct {
	tools             int
	buildSeconds      float64
	indexBytesPerTool float64
	p50us, p99us      float64
}

var benchLine = regexp.MustCompile(`^Benchmark(Build|Search)/tools=(\d+)(?:-\d+)?\s+\d+\s+(.*)$`)

// measureSearch runs the search package's own benchmarks (BenchmarkBuild
// and BenchmarkSearch over generated catalogs of 1k, 10k and 100k tools)
// and reads their figures.
func measureSearch(root string, buildTimes, searches int) ([]searchResult, string, error) {
	args := []string{"test", "-run", "^$", "-bench", "Build|Search", "-benchtime", fmt.Sprint(buildTimes) + "x", "./search/"}
	out, err := runGo(root, args...)
	if err != nil {
		return nil, "", err
	}
	// BenchmarkSearch wants many more iterations than BenchmarkBuild.
	searchArgs := []string{"test", "-run", "^$", "-bench", "Search", "-benchtime", fmt.Sprint(searches) + "x", "./search/"}
	searchOut, err := runGo(root, searchArgs...)
	if err != nil {
		return nil, "", err
	}
	bySize := map[int]*searchResult{}
	var order []int
	parse := func(out string, kind string) {
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			m := benchLine.FindStringSubmatch(sc.Text())
			if m == nil || m[1] != kind {
				continue
			}
			n, _ := strconv.Atoi(m[2])
			r := bySize[n]
			if r == nil {
				r = &searchResult{tools: n}
				bySize[n] = r
				order = append(order, n)
			}
			f := strings.Fields(m[3])
			for i := 0; i+1 < len(f); i += 2 {
				v, _ := strconv.ParseFloat(f[i], 64)
				switch f[i+1] {
				case "ns/op":
					if kind == "Build" {
						r.buildSeconds = v / 1e9
					}
				case "index-bytes/tool":
					r.indexBytesPerTool = v
				case "p50-µs":
					r.p50us = v
				case "p99-µs":
					r.p99us = v
				}
			}
		}
	}
	parse(out, "Build")
	parse(searchOut, "Search")
	var results []searchResult
	for _, n := range order {
		results = append(results, *bySize[n])
	}
	if len(results) == 0 {
		return nil, "", fmt.Errorf("no benchmark results in:\n%s\n%s", out, searchOut)
	}
	cmd := "go " + strings.Join(args, " ") + "` and `go " + strings.Join(searchArgs, " ")
	return results, cmd, nil
}

func runGo(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return string(b), nil
}
