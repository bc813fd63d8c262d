package catalogs

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/livemcpbench"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The merged catalog. A catalog of a few hundred tools from one field is
// easier than a gateway's in production, where many teams' servers stand
// side by side: the merged catalog puts several catalogs' servers in one,
// and each catalog's requests are measured there, among every other
// field's tools. A server whose domain another catalog already uses gets
// its catalog's name after its own; each gold tool is named by its server
// ("<domain>.<tool>"), since a bare name may now belong to servers of
// other catalogs too.

// MergedSet is a task set of one catalog, its gold tools named as the
// merged catalog names them.
type MergedSet struct {
	Catalog, Set string
	Tasks        []livemcpbench.Task
}

// Merge merges cats, with the task sets setsOf names for each, into one
// catalog: its servers, and the task sets in the order of cats.
func Merge(cats []*Catalog, setsOf func(*Catalog) []string) ([]*livemcpbench.Server, []MergedSet, error) {
	var servers []*livemcpbench.Server
	var sets []MergedSet
	used := make(map[string]bool)
	for _, c := range cats {
		own, err := c.Servers()
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", c.Name, err)
		}
		renamed := make(map[string]string, len(own))
		for _, s := range own {
			d := s.Domain
			if used[d] {
				d = livemcpbench.DomainName(s.Domain + "-" + c.Name)
			}
			if used[d] {
				return nil, nil, fmt.Errorf("%s: domain %s is used twice", c.Name, d)
			}
			used[d], renamed[s.Domain] = true, d
			m := *s
			m.Domain = d
			servers = append(servers, &m)
		}
		for _, set := range setsOf(c) {
			tasks, err := c.Tasks(set)
			if err != nil {
				return nil, nil, err
			}
			for i := range tasks {
				tasks[i].Tools = qualifiedGold(own, renamed, tasks[i].Tools)
			}
			sets = append(sets, MergedSet{Catalog: c.Name, Set: set, Tasks: tasks})
		}
	}
	return servers, sets, nil
}

// qualifiedGold names each gold tool of a catalog by its server in the
// merged catalog: a bare name stands for every server of the catalog that
// has the tool, "<domain>.<tool>" for that server's. A name no tool of the
// catalog has (LiveMCPBench's dev set names a few servers) stays as it
// is, and matches nothing, as in the catalog alone.
func qualifiedGold(servers []*livemcpbench.Server, renamed map[string]string, gold []string) []string {
	var out []string
	for _, g := range gold {
		n := len(out)
		for _, s := range servers {
			for _, t := range s.Tools {
				if t.Name == g || s.Domain+"."+t.Name == g {
					out = append(out, renamed[s.Domain]+"."+t.Name)
				}
			}
		}
		if len(out) == n {
			out = append(out, g)
		}
	}
	return out
}

// WriteServers writes servers to path as a tools.json in LiveMCPBench's
// format, each server key its domain.
func WriteServers(path string, servers []*livemcpbench.Server) error {
	type entry struct {
		Name        string                            `json:"name"`
		Description string                            `json:"description"`
		Category    string                            `json:"category"`
		Tools       map[string]map[string][]*mcp.Tool `json:"tools"`
	}
	entries := make([]entry, len(servers))
	for i, s := range servers {
		entries[i] = entry{Name: s.Name, Description: s.Description, Category: s.Category,
			Tools: map[string]map[string][]*mcp.Tool{s.Domain: {"tools": s.Tools}}}
	}
	b, err := json.Marshal(entries)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
