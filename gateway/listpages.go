package gateway

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxWholeListPages bounds the pages wholeList gathers: far more than any
// catalog fills (an upstream's lists are bounded, see listBounds).
const maxWholeListPages = 1000

// wholeList is a list result (first, the answer to req) with every page
// after it gathered in, and no cursor. A list answered under another
// policy than its session's (listsUnderRequestPolicy) is one page of the
// session's view, filtered: its cursor names the last item of that page,
// which may be one the request's policy hides, so it is never handed out.
func wholeList(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request, first mcp.Result) (mcp.Result, error) {
	switch first := first.(type) {
	case *mcp.ListToolsResult:
		return allPages(ctx, next, method, req.(*mcp.ListToolsRequest), first,
			func(p *mcp.ListToolsParams, c string) { p.Cursor = c },
			func(r *mcp.ListToolsResult) *string { return &r.NextCursor },
			func(dst, src *mcp.ListToolsResult) { dst.Tools = append(dst.Tools, src.Tools...) })
	case *mcp.ListPromptsResult:
		return allPages(ctx, next, method, req.(*mcp.ListPromptsRequest), first,
			func(p *mcp.ListPromptsParams, c string) { p.Cursor = c },
			func(r *mcp.ListPromptsResult) *string { return &r.NextCursor },
			func(dst, src *mcp.ListPromptsResult) { dst.Prompts = append(dst.Prompts, src.Prompts...) })
	case *mcp.ListResourcesResult:
		return allPages(ctx, next, method, req.(*mcp.ListResourcesRequest), first,
			func(p *mcp.ListResourcesParams, c string) { p.Cursor = c },
			func(r *mcp.ListResourcesResult) *string { return &r.NextCursor },
			func(dst, src *mcp.ListResourcesResult) { dst.Resources = append(dst.Resources, src.Resources...) })
	case *mcp.ListResourceTemplatesResult:
		return allPages(ctx, next, method, req.(*mcp.ListResourceTemplatesRequest), first,
			func(p *mcp.ListResourceTemplatesParams, c string) { p.Cursor = c },
			func(r *mcp.ListResourceTemplatesResult) *string { return &r.NextCursor },
			func(dst, src *mcp.ListResourceTemplatesResult) {
				dst.ResourceTemplates = append(dst.ResourceTemplates, src.ResourceTemplates...)
			})
	}
	return first, nil
}

// allPages is first, a page of a list answered to req, with the pages
// after it appended (add), asking next for each with the cursor of the
// one before (setCursor, cursor); the result has no cursor.
func allPages[PV any, P interface {
	*PV
	mcp.Params
}, R any](ctx context.Context, next mcp.MethodHandler, method string, req *mcp.ServerRequest[P], first *R,
	setCursor func(P, string), cursor func(*R) *string, add func(dst, src *R)) (*R, error) {
	out := *first
	for pages := 1; *cursor(&out) != "" && pages < maxWholeListPages; pages++ {
		var params PV
		if req.Params != nil {
			params = *req.Params
		}
		setCursor(&params, *cursor(&out))
		res, err := next(ctx, method, &mcp.ServerRequest[P]{Session: req.Session, Params: &params, Extra: req.Extra})
		if err != nil {
			return nil, err
		}
		page, ok := any(res).(*R)
		if !ok {
			return nil, fmt.Errorf("%s: a page of %T, want %T", method, res, page)
		}
		add(&out, page)
		*cursor(&out) = *cursor(page)
	}
	*cursor(&out) = ""
	return &out, nil
}
