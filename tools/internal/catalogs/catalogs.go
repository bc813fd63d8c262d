// Package catalogs holds the catalogs of real, published MCP tool
// definitions that the gateway's search is measured on besides
// LiveMCPBench's, and finds every catalog of the repository with its
// labelled request sets.
//
// A catalog is a directory with a tools.json in LiveMCPBench's format (see
// livemcpbench.Servers) and any number of task sets, tasks-<set>.json, in
// LiveMCPBench's task format. A file SEALED in the directory marks a
// catalog kept for measuring only: tools that list catalogs skip it unless
// asked for it by name. Catalogs built here also have sources.json (where
// each server's definitions come from, see Source), README.md (provenance
// and licences) and kit/ (what a request writer needs).
package catalogs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/livemcpbench"
)

// LiveMCPBench is the name of LiveMCPBench's catalog, whose data lives in
// the livemcpbench package.
const LiveMCPBench = "livemcpbench"

// Catalog is one catalog directory.
type Catalog struct {
	Name string
	Dir  string
	// Sealed catalogs are measured only when asked for explicitly.
	Sealed bool
	// TaskSets are the names of its task sets (tasks-<name>.json), sorted.
	TaskSets []string
}

// All returns every catalog of the tools module at toolsDir: LiveMCPBench's
// first, then each directory under internal/catalogs that holds a
// tools.json, by name.
func All(toolsDir string) ([]*Catalog, error) {
	live, err := Open(filepath.Join(toolsDir, "internal", "livemcpbench", "data"))
	if err != nil {
		return nil, err
	}
	live.Name = LiveMCPBench
	out := []*Catalog{live}
	root := filepath.Join(toolsDir, "internal", "catalogs")
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, e.Name(), ToolsFile)); err != nil {
			continue
		}
		c, err := Open(filepath.Join(root, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Select returns the catalogs of all named in names (comma-separated), or
// every catalog that is not sealed if names is empty. A sealed catalog is
// returned only if sealed is true; naming one without it is an error, so
// that nobody measures it by accident.
func Select(all []*Catalog, names string, sealed bool) ([]*Catalog, error) {
	if names == "" {
		var out []*Catalog
		for _, c := range all {
			if !c.Sealed || sealed {
				out = append(out, c)
			}
		}
		return out, nil
	}
	var out []*Catalog
	for _, name := range strings.Split(names, ",") {
		c := Find(all, strings.TrimSpace(name))
		if c == nil {
			return nil, fmt.Errorf("no catalog %q; there are %s", name, strings.Join(Names(all), ", "))
		}
		if c.Sealed && !sealed {
			return nil, fmt.Errorf("catalog %q is sealed: it is measured only with -sealed, and never tuned on", c.Name)
		}
		out = append(out, c)
	}
	return out, nil
}

// Find returns the catalog called name, or nil.
func Find(all []*Catalog, name string) *Catalog {
	for _, c := range all {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Names lists the catalogs' names.
func Names(all []*Catalog) []string {
	var names []string
	for _, c := range all {
		names = append(names, c.Name)
	}
	return names
}

// Open reads the catalog in dir, named after the directory.
func Open(dir string) (*Catalog, error) {
	if _, err := os.Stat(filepath.Join(dir, ToolsFile)); err != nil {
		return nil, fmt.Errorf("%s is not a catalog: %v", dir, err)
	}
	c := &Catalog{Name: filepath.Base(dir), Dir: dir}
	if _, err := os.Stat(filepath.Join(dir, SealedFile)); err == nil {
		c.Sealed = true
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	sets, err := filepath.Glob(filepath.Join(dir, "tasks-*.json"))
	if err != nil {
		return nil, err
	}
	for _, s := range sets {
		c.TaskSets = append(c.TaskSets, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(s), "tasks-"), ".json"))
	}
	sort.Strings(c.TaskSets)
	return c, nil
}

// ToolsPath is the catalog's tools.json.
func (c *Catalog) ToolsPath() string { return filepath.Join(c.Dir, ToolsFile) }

// TasksPath is the file of the task set called set.
func (c *Catalog) TasksPath(set string) string {
	return filepath.Join(c.Dir, "tasks-"+set+".json")
}

// HasTaskSet reports whether the catalog has the task set called set.
func (c *Catalog) HasTaskSet(set string) bool {
	return sort.SearchStrings(c.TaskSets, set) < len(c.TaskSets) && c.TaskSets[sort.SearchStrings(c.TaskSets, set)] == set
}

// Servers loads the catalog's servers.
func (c *Catalog) Servers() ([]*livemcpbench.Server, error) {
	return livemcpbench.Servers(c.ToolsPath())
}

// Tasks loads the task set called set.
func (c *Catalog) Tasks(set string) ([]livemcpbench.Task, error) {
	if !c.HasTaskSet(set) {
		return nil, fmt.Errorf("catalog %s has no task set %q (it has %v)", c.Name, set, c.TaskSets)
	}
	return livemcpbench.Tasks(c.TasksPath(set))
}
