package catalogs

import (
	"fmt"
	"strings"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/livemcpbench"
)

// TaskName is how a task names a tool of servers: its bare name, or
// "<domain>.<name>" if several servers have a tool of that name.
func TaskName(servers []*livemcpbench.Server, domain, name string) string {
	n := 0
	for _, s := range servers {
		for _, t := range s.Tools {
			if t.Name == name {
				n++
			}
		}
	}
	if n > 1 {
		return domain + "." + name
	}
	return name
}

// ResolveTaskName checks that a task's tool name names exactly one tool of
// servers: a bare name that one server has, or "<domain>.<name>".
func ResolveTaskName(servers []*livemcpbench.Server, name string) error {
	var owners []string
	for _, s := range servers {
		for _, t := range s.Tools {
			if t.Name == name {
				owners = append(owners, s.Domain)
			}
			if s.Domain+"."+t.Name == name {
				return nil
			}
		}
	}
	switch len(owners) {
	case 0:
		return fmt.Errorf("no tool %q in the catalog", name)
	case 1:
		return nil
	}
	var qualified []string
	for _, d := range owners {
		qualified = append(qualified, d+"."+name)
	}
	return fmt.Errorf("%q is a tool of several servers: name one of %s", name, strings.Join(qualified, ", "))
}
