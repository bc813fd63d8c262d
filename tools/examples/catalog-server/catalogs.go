package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/catalogs"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
)

// repositoryCatalogs finds the catalogs of the repository the working
// directory is in.
func repositoryCatalogs() ([]*catalogs.Catalog, error) {
	root, err := procs.RepoRoot()
	if err != nil {
		return nil, fmt.Errorf("-catalog and -catalogs read the repository's catalogs: %v", err)
	}
	return catalogs.All(procs.ToolsDir(root))
}

func findCatalog(name string) (*catalogs.Catalog, error) {
	all, err := repositoryCatalogs()
	if err != nil {
		return nil, err
	}
	c := catalogs.Find(all, name)
	if c == nil {
		return nil, fmt.Errorf("no catalog %q; there are %s", name, strings.Join(catalogs.Names(all), ", "))
	}
	return c, nil
}

// listCatalogs prints each catalog's name, size, task sets and whether it
// is sealed.
func listCatalogs(w io.Writer) error {
	all, err := repositoryCatalogs()
	if err != nil {
		return err
	}
	for _, c := range all {
		servers, err := c.Servers()
		if err != nil {
			return err
		}
		tools := 0
		for _, s := range servers {
			tools += len(s.Tools)
		}
		sets := "no task sets"
		if len(c.TaskSets) > 0 {
			sets = "task sets " + strings.Join(c.TaskSets, ", ")
		}
		sealed := ""
		if c.Sealed {
			sealed = ", sealed"
		}
		fmt.Fprintf(w, "%s: %d servers, %d tools, %s%s\n", c.Name, len(servers), tools, sets, sealed)
	}
	return nil
}
