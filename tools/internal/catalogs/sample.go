package catalogs

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"sort"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/livemcpbench"
)

// SampleEntry is one target tool of a request writer's sample.
type SampleEntry struct {
	TaskID string `json:"task_id"`
	// Server is the tool's server key (its domain), Tool its name, and
	// Name what a task's "tools" calls it (see TaskName).
	Server      string   `json:"server"`
	Tool        string   `json:"tool"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Parameters  []string `json:"parameters"`
}

// Sample orders the tools of servers by the SHA-256 of
// "<seed>/<server key>/<tool>" and returns the first n, numbered
// "<prefix>-001" on: a sample anyone can recompute from the catalog and
// the seed alone.
func Sample(servers []*livemcpbench.Server, seed, prefix string, n int) []SampleEntry {
	type keyed struct {
		hash [32]byte
		e    SampleEntry
	}
	var all []keyed
	for _, s := range servers {
		for _, t := range s.Tools {
			all = append(all, keyed{sha256.Sum256([]byte(seed + "/" + s.Domain + "/" + t.Name)), SampleEntry{
				Server: s.Domain, Tool: t.Name, Name: TaskName(servers, s.Domain, t.Name),
				Description: t.Description, Parameters: ParamNames(t.InputSchema),
			}})
		}
	}
	sort.Slice(all, func(i, j int) bool { return bytes.Compare(all[i].hash[:], all[j].hash[:]) < 0 })
	out := make([]SampleEntry, 0, min(n, len(all)))
	for i, k := range all[:min(n, len(all))] {
		k.e.TaskID = prefix + "-" + threeDigits(i+1)
		out = append(out, k.e)
	}
	return out
}

func threeDigits(i int) string {
	b, _ := json.Marshal(i)
	for len(b) < 3 {
		b = append([]byte{'0'}, b...)
	}
	return string(b)
}

// ParamNames are the names of an input schema's properties, sorted.
func ParamNames(schema any) []string {
	b, _ := json.Marshal(schema)
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(b, &s)
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
