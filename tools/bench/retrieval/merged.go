package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/catalogs"
)

// mergeCatalogs writes the merged catalog (see catalogs.Merge) of plan's
// measured catalogs and task sets into dir, tools.json and a tasks file
// per catalog and set, and returns the run that measures it: its task
// sets are named "<catalog>/<set>".
func mergeCatalogs(toolsDir string, plan []catalogRun, dir string) (catalogRun, error) {
	all, err := catalogs.All(toolsDir)
	if err != nil {
		return catalogRun{}, err
	}
	var cats []*catalogs.Catalog
	setsOf := make(map[string][]string)
	merged := catalogRun{name: "merged", toolsPath: filepath.Join(dir, catalogs.ToolsFile)}
	for _, p := range plan {
		if p.note != "" || len(p.sets) == 0 {
			continue
		}
		c := catalogs.Find(all, p.name)
		if c == nil {
			return catalogRun{}, fmt.Errorf("-merged: %s is no catalog of the repository", p.name)
		}
		for _, s := range p.sets {
			if !c.HasTaskSet(s.name) {
				return catalogRun{}, fmt.Errorf("-merged: catalog %s has no task set %q", p.name, s.name)
			}
			setsOf[c.Name] = append(setsOf[c.Name], s.name)
		}
		cats = append(cats, c)
		merged.sealed = merged.sealed || p.sealed
	}
	if len(cats) == 0 {
		return catalogRun{}, fmt.Errorf("-merged: no catalog with task sets to merge")
	}
	servers, sets, err := catalogs.Merge(cats, func(c *catalogs.Catalog) []string { return setsOf[c.Name] })
	if err != nil {
		return catalogRun{}, err
	}
	if err := catalogs.WriteServers(merged.toolsPath, servers); err != nil {
		return catalogRun{}, err
	}
	for _, s := range sets {
		path := filepath.Join(dir, "tasks-"+s.Catalog+"-"+s.Set+".json")
		if err := writeJSON(path, s.Tasks); err != nil {
			return catalogRun{}, err
		}
		merged.sets = append(merged.sets, taskSet{s.Catalog + "/" + s.Set, path})
	}
	return merged, nil
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
