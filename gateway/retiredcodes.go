package gateway

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// codeResourceNotFoundRetired is the resource-not-found code of the
// revisions before 2026-07-28. That revision retires it (a missing
// resource is -32602, Invalid params) and forbids its implementations to
// emit it.
const codeResourceNotFoundRetired = -32002

// retireCodes is receiving middleware: a request of the stateless revision
// (2026-07-28 or later) is not answered with an error code that revision
// forbids, which an upstream of an earlier revision may have answered
// with: -32002 becomes -32602, its message and data kept. A request of an
// earlier revision gets the upstream's code as it was sent.
func retireCodes(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		var wire *jsonrpc.Error
		if err == nil || !errors.As(err, &wire) || wire.Code != codeResourceNotFoundRetired || requestVersion(req) < StatelessRevision {
			return res, err
		}
		answer := *wire
		answer.Code = jsonrpc.CodeInvalidParams
		return res, &answer
	}
}
