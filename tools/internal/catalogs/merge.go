package catalogs

import (
	"fmt"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/livemcpbench"
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

// WriteServers writes servers to path as a tools.json (see WriteEntries),
// each server key its domain.
func WriteServers(path string, servers []*livemcpbench.Server) error {
	entries := make([]Entry, len(servers))
	for i, s := range servers {
		tools := make([]Tool, len(s.Tools))
		for j, t := range s.Tools {
			tools[j] = Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema}
			if t.Annotations != nil {
				tools[j].Annotations = t.Annotations
			}
		}
		entries[i] = Entry{Name: s.Name, Description: s.Description, Category: s.Category,
			Tools: map[string]ToolList{s.Domain: {Tools: tools}}}
	}
	return WriteEntries(path, entries)
}
