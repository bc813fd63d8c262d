package gateway

import (
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listsUnderRequestPolicy is receiving middleware for a view's server. A
// client of an earlier revision has its lists answered by the server of
// the view its session began under, while Caddy's matchers choose each
// request's policy anew (by network, header, claim): a list asked under
// another policy keeps only what that policy's view exposes too, as its
// calls, reads and gets are judged by it (requestView), and comes whole,
// without a cursor (see wholeList).
func (v *view) listsUnderRequestPolicy(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		switch method {
		case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
			if own := v.g.requestView(req, v); own != v {
				if res, err = wholeList(ctx, next, method, req, res); err != nil {
					return nil, err
				}
				return own.keepExposed(res), nil
			}
		}
		return res, nil
	}
}

// keepExposed is list result res without the items v does not expose:
// of tools, all but the meta-tools and those its routes name; of prompts,
// resources and templates, those its routes do not name.
func (v *view) keepExposed(res mcp.Result) mcp.Result {
	r := v.exposed.routes.Load()
	if r == nil {
		r = &routes{}
	}
	switch l := res.(type) {
	case *mcp.ListToolsResult:
		out := *l
		out.Tools = keep(l.Tools, func(t *mcp.Tool) bool { _, ok := r.tools[t.Name]; return ok || isMetaTool(t.Name) })
		return &out
	case *mcp.ListPromptsResult:
		out := *l
		out.Prompts = keep(l.Prompts, func(p *mcp.Prompt) bool { _, ok := r.prompts[p.Name]; return ok })
		return &out
	case *mcp.ListResourcesResult:
		out := *l
		out.Resources = keep(l.Resources, func(res *mcp.Resource) bool { _, ok := r.resources[res.URI]; return ok })
		return &out
	case *mcp.ListResourceTemplatesResult:
		out := *l
		out.ResourceTemplates = keep(l.ResourceTemplates, func(t *mcp.ResourceTemplate) bool {
			return slices.ContainsFunc(r.templates, func(route templateRoute) bool { return route.template == t.URITemplate })
		})
		return &out
	}
	return res
}

// keep is a copy of items with only those exposed says yes to.
func keep[T any](items []*T, exposed func(*T) bool) []*T {
	return slices.DeleteFunc(slices.Clone(items), func(item *T) bool { return !exposed(item) })
}

// isMetaTool reports whether name is one of the three meta-tools, which
// every view of a meta or hybrid gateway serves.
func isMetaTool(name string) bool {
	return name == DiscoverToolsName || name == GetToolSchemaName || name == ExecuteToolName
}
