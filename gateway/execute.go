package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

var executeToolArgs = []argSpec{
	{name: "tool_name", kind: argString, required: true},
	{name: "arguments", kind: argObject},
}

// executeTool implements execute_tool: resolve the name, check the
// arguments against the upstream's schema, call the upstream, and return
// its result unchanged (content blocks of every type, structuredContent,
// isError, _meta). Gateway failures come back as errorResult, marked with
// ErrorMetaKey, so a client can tell them from the tool's own errors.
func (v *view) executeTool(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, _ error) {
	v = v.g.requestView(req, v)
	start := time.Now()
	var t *Tool
	var arguments json.RawMessage
	defer func() { v.g.observeCall(ctx, req, t, arguments, res, string(ErrUpstream), start) }()
	v.g.AwaitStartup(ctx)
	args, err := decodeArgs(ExecuteToolName, req.Params.Arguments, executeToolArgs)
	if err != nil {
		return errorResult(ErrInvalidArguments, err.Error()+`. Example: {"tool_name": "domain.tool", "arguments": {...}}.`), nil
	}
	if t, err = v.Catalog().Lookup(args.str("tool_name")); err != nil {
		return errorResult(ErrUnknownTool, err.Error()), nil
	}
	arguments = args.object("arguments")
	if arguments == nil {
		arguments = json.RawMessage("{}")
	}
	if bad := checkArguments(t, arguments); bad != nil {
		return bad, nil
	}
	state := t.Domain.State
	if t.Domain.upstream != nil {
		// The upstream's state now: the catalog is rebuilt a moment after
		// the upstream changes, and a call right after a reconnect must not
		// be refused on the catalog's word that it is still down.
		state = t.Domain.upstream.Status().State
	}
	if state != StateReady && state != StateConnecting {
		if t.Domain.upstream != nil {
			t.Domain.upstream.RetrySoon() // a model wants it back
		}
		return errorResult(ErrUnavailable, unavailableMessage(t, state)), nil
	}
	res, err = v.g.callTool(ctx, req, t, arguments)
	if err != nil {
		return v.g.callError(ctx, t, err), nil
	}
	if res.Content == nil {
		res.Content = []mcp.Content{}
	}
	return res, nil
}

// unavailableMessage is the error for a call to a tool whose upstream is
// in state (down or degraded).
func unavailableMessage(t *Tool, state State) string {
	why := "is unreachable"
	if state == StateDegraded {
		why = "is not answering"
	}
	return fmt.Sprintf("Tool '%s' is temporarily unavailable: upstream server '%s' %s. Other domains are still available.", t.Name, t.Domain.Name, why)
}

func busyMessage(t *Tool, busy *BusyError) string {
	switch {
	case busy.ClientSessions && busy.PerIdentity:
		return fmt.Sprintf("Tool '%s' is busy for you: you already have %s of upstream server '%s' of your own, your share of its client sessions (max_client_sessions). Close a session you no longer use, or retry when a call of yours has finished; other domains are still available.", t.Name, plural(busy.Limit, "session"), t.Domain.Name)
	case busy.PerIdentity:
		return fmt.Sprintf("Tool '%s' is busy for you: you already run %s on upstream server '%s', your share of its concurrent calls, and none finished in time. Retry when one of yours has finished; other domains are still available.", t.Name, plural(busy.Limit, "call"), t.Domain.Name)
	case busy.ClientSessions:
		return fmt.Sprintf("Tool '%s' is busy: upstream server '%s' already has %d client sessions of its own, its limit (max_client_sessions). Retry later; other domains are still available.", t.Name, t.Domain.Name, busy.Limit)
	}
	return fmt.Sprintf("Tool '%s' is busy: upstream server '%s' already runs %d calls, its limit, and none finished in time. Retry shortly; other domains are still available.", t.Name, t.Domain.Name, busy.Limit)
}

// undecodableMessage says that an upstream's answer could not be read.
func undecodableMessage(t *Tool, err error) string {
	return fmt.Sprintf("Upstream '%s' answered the call to '%s' with something the gateway could not read (%s); the upstream may not follow the MCP protocol here.", t.Domain.Name, t.Name, boundedText(strings.TrimSpace(err.Error())))
}

// plural is n with noun, made plural when n is not 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// callError turns a failed upstream call into a gateway error result. The
// cause is logged for the operator; the model gets what it can act on,
// without internal addresses.
func (g *Gateway) callError(ctx context.Context, t *Tool, err error) *mcp.CallToolResult {
	var unavailable *UnavailableError
	var busy *BusyError
	var refused refusal
	var unasked unanswered
	switch {
	case errors.As(err, &refused):
		return errorResult(refused.outcome, fmt.Sprintf("The call to '%s' was refused: %s", t.Name, refused.Error()))
	case errors.As(err, &unavailable):
		g.logger.Warn("call to unavailable upstream", zap.String("tool", t.Name), errField(err))
		return errorResult(ErrUnavailable, unavailableMessage(t, unavailable.State))
	case errors.As(err, &busy):
		g.logger.Warn("upstream busy", zap.String("tool", t.Name), errField(err))
		return errorResult(ErrBusy, busyMessage(t, busy))
	case ctx.Err() != nil:
		return errorResult(ErrTimeout, fmt.Sprintf("The call to '%s' was cancelled.", t.Name))
	case errors.As(err, &unasked):
		return errorResult(ErrInvalidArguments, fmt.Sprintf("The call to '%s' failed: this client did not answer the question upstream '%s' asked it (%s).", t.Name, t.Domain.Name, boundedText(strings.TrimSpace(unasked.Error()))))
	case errors.Is(err, context.DeadlineExceeded):
		g.logger.Warn("upstream call timed out", zap.String("tool", t.Name), errField(err))
		// The timeout the call was made with: a reload since may have
		// changed the configured one.
		after := g.current().byName[t.Domain.Name].ToolTimeout(t.UpstreamName)
		var timedOut *TimeoutError
		if errors.As(err, &timedOut) {
			after = timedOut.After
		}
		return errorResult(ErrTimeout, fmt.Sprintf("Tool '%s' did not answer within %s. It may still be running upstream; retry later or try another tool.", t.Name, after))
	case undecodable(err):
		g.logger.Warn("upstream answer could not be read", zap.String("tool", t.Name), errField(err))
		return errorResult(ErrUpstream, undecodableMessage(t, err))
	default:
		// A JSON-RPC error from the upstream (invalid params, unknown
		// tool, internal error): its message is meant for the caller.
		g.logger.Warn("upstream call failed", zap.String("tool", t.Name), errField(err))
		return errorResult(upstreamErrorCode(err), fmt.Sprintf("Upstream '%s' rejected the call to '%s': %s", t.Domain.Name, t.Name, boundedText(strings.TrimSpace(err.Error()))))
	}
}

// upstreamErrorCode is whose failure an upstream's JSON-RPC error to a
// call says it is: invalid params (-32602) refuse what the caller sent,
// ErrInvalidArguments; any other error, or none, is ErrUpstream.
func upstreamErrorCode(err error) ErrorCode {
	if wire := answeredError(err); wire != nil && wire.Code == jsonrpc.CodeInvalidParams {
		return ErrInvalidArguments
	}
	return ErrUpstream
}
