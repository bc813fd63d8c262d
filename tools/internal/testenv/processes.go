package testenv

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// SupervisorEnv marks the supervisor the gateway runs each stdio upstream
// under (gateway/internal/supervisor): it carries the upstream's
// environment too, but it is the gateway's process, not the upstream's.
const SupervisorEnv = "MCP_GATEWAY_SUPERVISE=1"

// ProcessesWithEnv lists the processes whose environment holds entry
// ("NAME=value"), supervisors included, from /proc.
func ProcessesWithEnv(entry string) []int {
	return processesWhere(func(vars []string) bool { return slices.Contains(vars, entry) })
}

// UpstreamProcessesWithEnv is ProcessesWithEnv without the gateway's
// supervisors: the processes of the upstream itself.
func UpstreamProcessesWithEnv(entry string) []int {
	return processesWhere(func(vars []string) bool {
		return slices.Contains(vars, entry) && !slices.Contains(vars, SupervisorEnv)
	})
}

func processesWhere(keep func(vars []string) bool) []int {
	var pids []int
	environs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, path := range environs {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if keep(strings.Split(string(b), "\x00")) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			pids = append(pids, pid)
		}
	}
	return pids
}
