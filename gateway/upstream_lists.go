package gateway

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits on what an upstream may send in one list: its items, its pages,
// and the bytes (of JSON) of the items a connection keeps.
const (
	maxListItems = 100_000
	maxListPages = 1000
	maxListBytes = 64 << 20
)

// page reads one page of a list: its items and the next cursor.
type page[T any] func(ctx context.Context, cursor string) (items []*T, next string, err error)

// listBounds bound what listAll keeps of a list.
type listBounds[T any] struct {
	// keep > 0 stops reading at keep items and keeps the first keep.
	keep int
	// itemBytes > 0 bounds one item, in bytes of JSON: an item over it is
	// kept as oversized makes it, or, if oversized is nil, not kept.
	itemBytes int64
	oversized func(item *T, size int64) *T
}

// listAll reads a whole paginated list, refusing one that never ends or
// would not fit: a repeated cursor, too many pages or items, or more than
// maxListBytes of items kept. It returns the items kept (see listBounds)
// and how many it left out for their size.
func listAll[T any](ctx context.Context, read page[T], b listBounds[T]) (out []*T, tooBig int, err error) {
	seen := make(map[string]bool)
	cursor := ""
	var kept int64
	for range maxListPages {
		items, next, err := read(ctx, cursor)
		if err != nil {
			return nil, 0, err
		}
		for _, item := range items {
			if item == nil {
				continue
			}
			size := jsonSize(item)
			if b.itemBytes > 0 && size > b.itemBytes {
				tooBig++
				if b.oversized == nil {
					continue
				}
				item = b.oversized(item, size)
				size = 0
			}
			if kept += size; kept > maxListBytes {
				return nil, 0, fmt.Errorf("more than %d MiB of items", maxListBytes>>20)
			}
			out = append(out, item)
		}
		if b.keep > 0 && len(out) >= b.keep {
			return slices.Clone(out[:b.keep]), tooBig, nil // the rest of a long page is garbage now
		}
		if len(out) > maxListItems {
			return nil, 0, fmt.Errorf("more than %d items", maxListItems)
		}
		if next == "" {
			return out, tooBig, nil
		}
		if seen[next] {
			return nil, 0, fmt.Errorf("pagination loops (cursor %q repeats)", next)
		}
		seen[next] = true
		cursor = next
	}
	return nil, 0, fmt.Errorf("more than %d pages", maxListPages)
}

// sameLists reports whether two statuses hold the same lists: the same
// items, in the same order.
func sameLists(a, b UpstreamStatus) bool {
	return reflect.DeepEqual(a.Tools, b.Tools) && reflect.DeepEqual(a.Resources, b.Resources) &&
		reflect.DeepEqual(a.ResourceTemplates, b.ResourceTemplates) && reflect.DeepEqual(a.Prompts, b.Prompts)
}

// SetItemSizeLimit bounds, in bytes of JSON, each item a discovery
// connection keeps of its upstream's lists (a gateway's MaxToolSize; 0:
// no bound): a tool over it is kept as its name and size only
// (oversizedTool), for the gateway to say it was left out; a resource,
// template or prompt over it is not kept, and counted. An upstream
// listing megabytes of descriptions then costs no more than the limit
// for each. Raising it re-reads the lists. Two gateways sharing one
// upstream with different limits share the last one set.
func (u *Upstream) SetItemSizeLimit(n int64) {
	n = max(n, 0)
	old := u.itemSizeLimit.Swap(n)
	if old == n {
		return
	}
	// Lists read before the limit was set (a connection starts before its
	// gateway) are cut now; setStatus cuts those being read meanwhile.
	u.mu.Lock()
	u.fitItems()
	u.mu.Unlock()
	if old != 0 && (n == 0 || n > old) {
		u.Refresh() // items over the old limit were never kept
	}
}

// fitItems applies the item size limit to the status's lists, if they
// were read under another. Called with u.mu held.
func (u *Upstream) fitItems() {
	limit := u.itemSizeLimit.Load()
	st := &u.status
	if limit == 0 || st.itemBytes == limit || (st.itemBytes != 0 && st.itemBytes < limit) {
		return
	}
	st.itemBytes = limit
	tools := make([]*mcp.Tool, 0, len(st.Tools))
	for _, t := range st.Tools {
		if _, stub := oversizedSize(t); !stub {
			if size := jsonSize(t); size > limit {
				t = oversizedTool(t, size)
			}
		}
		tools = append(tools, t)
	}
	st.Tools = tools
	var dropped int
	st.Resources, dropped = withinSize(st.Resources, limit)
	st.OversizedItems += dropped
	st.ResourceTemplates, dropped = withinSize(st.ResourceTemplates, limit)
	st.OversizedItems += dropped
	st.Prompts, dropped = withinSize(st.Prompts, limit)
	st.OversizedItems += dropped
}

// withinSize is items without those over limit bytes of JSON, and how
// many it left out.
func withinSize[T any](items []*T, limit int64) ([]*T, int) {
	out := make([]*T, 0, len(items))
	for _, item := range items {
		if jsonSize(item) <= limit {
			out = append(out, item)
		}
	}
	return out, len(items) - len(out)
}

// oversizedSizeKey is the _meta key of the stand-in oversizedTool keeps
// for a tool over the item size limit: the size of its definition.
const oversizedSizeKey = "io.github.caddy-mcp/oversized"

// oversizedTool is the stand-in kept for a tool whose definition (size
// bytes) is over the item size limit.
func oversizedTool(t *mcp.Tool, size int64) *mcp.Tool {
	return &mcp.Tool{Name: t.Name, Meta: mcp.Meta{oversizedSizeKey: size}}
}

// oversizedSize is the size of the definition a stand-in oversizedTool
// replaced, and whether def is one.
func oversizedSize(def *mcp.Tool) (int64, bool) {
	n, ok := def.Meta[oversizedSizeKey].(int64)
	return n, ok
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
