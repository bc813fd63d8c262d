package gateway

import (
	"context"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits on what an upstream may send in one list.
const (
	maxListItems = 100_000
	maxListPages = 1000
)

// page reads one page of a list: its items and the next cursor.
type page[T any] func(ctx context.Context, cursor string) (items []*T, next string, err error)

// listAll reads a whole paginated list, refusing one that never ends: a
// repeated cursor, too many pages or too many items. With keep > 0 it
// stops reading once it has keep items and returns the first keep.
func listAll[T any](ctx context.Context, read page[T], keep int) ([]*T, error) {
	var out []*T
	seen := make(map[string]bool)
	cursor := ""
	for range maxListPages {
		items, next, err := read(ctx, cursor)
		if err != nil {
			return nil, err
		}
		for _, item := range items {
			if item != nil {
				out = append(out, item)
			}
		}
		if keep > 0 && len(out) >= keep {
			return slices.Clone(out[:keep]), nil // the rest of a long page is garbage now
		}
		if len(out) > maxListItems {
			return nil, fmt.Errorf("more than %d items", maxListItems)
		}
		if next == "" {
			return out, nil
		}
		if seen[next] {
			return nil, fmt.Errorf("pagination loops (cursor %q repeats)", next)
		}
		seen[next] = true
		cursor = next
	}
	return nil, fmt.Errorf("more than %d pages", maxListPages)
}

// SetToolLimit bounds the tools a discovery connection keeps of its
// upstream's list: the first n in the upstream's order, and one more, so
// that a reader of Status can tell the upstream listed more than n (0: no
// bound but maxListItems). An upstream listing 50,000 tools then costs
// the memory of n. A gateway sets it to its MaxToolsPerUpstream; raising
// it re-reads the lists. Two gateways sharing one upstream with different
// limits share the last one set.
func (u *Upstream) SetToolLimit(n int) {
	old := int(u.toolLimit.Swap(int64(max(n, 0))))
	if old == n {
		return
	}
	// Lists read before the limit was set (a connection starts before its
	// gateway) are cut now; setStatus cuts those being read meanwhile.
	u.mu.Lock()
	u.cutTools()
	u.mu.Unlock()
	if old != 0 && (n <= 0 || n > old) {
		u.Refresh() // tools past the old limit were never read
	}
}

// cutTools cuts the status's tools to keptTools. Called with u.mu held.
func (u *Upstream) cutTools() {
	if keep := u.keptTools(); keep > 0 && len(u.status.Tools) > keep {
		u.status.Tools = slices.Clone(u.status.Tools[:keep])
	}
}

// keptTools is how many tools readLists keeps (see SetToolLimit).
func (u *Upstream) keptTools() int {
	if n := u.toolLimit.Load(); n > 0 {
		return int(n) + 1
	}
	return 0
}

func toolPages(s *mcp.ClientSession) page[mcp.Tool] {
	return func(ctx context.Context, cursor string) ([]*mcp.Tool, string, error) {
		res, err := s.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.Tools, res.NextCursor, nil
	}
}

func resourcePages(s *mcp.ClientSession) page[mcp.Resource] {
	return func(ctx context.Context, cursor string) ([]*mcp.Resource, string, error) {
		res, err := s.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.Resources, res.NextCursor, nil
	}
}

func templatePages(s *mcp.ClientSession) page[mcp.ResourceTemplate] {
	return func(ctx context.Context, cursor string) ([]*mcp.ResourceTemplate, string, error) {
		res, err := s.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.ResourceTemplates, res.NextCursor, nil
	}
}

func promptPages(s *mcp.ClientSession) page[mcp.Prompt] {
	return func(ctx context.Context, cursor string) ([]*mcp.Prompt, string, error) {
		res, err := s.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.Prompts, res.NextCursor, nil
	}
}
