package gateway

import (
	"context"
	"fmt"

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
// repeated cursor, too many pages or too many items.
func listAll[T any](ctx context.Context, read page[T]) ([]*T, error) {
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
