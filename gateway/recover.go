package gateway

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// recoverPanics is middleware that turns a panic while handling a message
// into an internal error for that message alone, logged with its stack:
// the SDK runs handlers on goroutines of their own, where a panic would
// take the whole process (and Caddy with it) down.
func recoverPanics(logger *zap.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if p := recover(); p != nil {
					logger.Error("panic while handling an MCP message; the message fails, the gateway goes on",
						zap.String("method", method), zap.Any("panic", p), zap.ByteString("stack", debug.Stack()))
					res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error handling %s", method)}
				}
			}()
			return next(ctx, method, req)
		}
	}
}
