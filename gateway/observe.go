package gateway

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// Observer hears of what the gateway does, for metrics. Its methods are
// called on the request path: they must be quick and safe for concurrent
// use.
type Observer interface {
	// ToolCalled: a tool call (execute_tool, or a passthrough tools/call)
	// ended.
	ToolCalled(CallRecord)
	// Searched: discover_tools ranked tools for a query.
	Searched(SearchRecord)
}

// CallRecord is one tool call. Domain and Tool are empty when the call
// named no tool the caller may use (their values would be the caller's
// words, not the catalog's).
type CallRecord struct {
	Domain, Tool string
	// Outcome is OutcomeOK, OutcomeToolError (the tool's own isError),
	// OutcomeInputRequired, OutcomeCancelled, or the gateway's ErrorCode
	// for the call.
	Outcome  string
	Duration time.Duration
}

// SearchRecord is one ranked search.
type SearchRecord struct {
	Query   string
	Results int
	// Weak: there were results, but the best covers less than half of the
	// query's words.
	Weak bool
}

// Call outcomes besides the gateway's error codes.
const (
	OutcomeOK        = "ok"
	OutcomeToolError = "tool_error"
	// OutcomeCancelled: the call's request ended (its client cancelled
	// it, or went away) before the call did, which then failed.
	OutcomeCancelled = "cancelled"
	// OutcomeInputRequired: a round of a call of the 2026-07-28 revision
	// that ended with questions for its client (input_required); the
	// client's retry with the answers is recorded as a call of its own.
	OutcomeInputRequired = "input_required"
)

// weakCoverage is the share of a query's words below which the best hit
// is a weak match.
const weakCoverage = 0.5

// callOutcome classifies a tool call's result; failure is the outcome of
// a call that ended without one (a JSON-RPC error).
func callOutcome(res *mcp.CallToolResult, failure string) string {
	if res == nil {
		return failure
	}
	if code, ok := res.Meta[ErrorMetaKey].(string); ok {
		return code
	}
	if res.IsError {
		return OutcomeToolError
	}
	if len(res.InputRequests) > 0 {
		return OutcomeInputRequired
	}
	return OutcomeOK
}

// requestCaller is who made req, as logs show it (see Caller.String).
func (g *Gateway) requestCaller(req *mcp.CallToolRequest) string {
	if req == nil {
		return ""
	}
	return g.callerOf(req.Extra).String()
}

// observeCall logs a finished tool call, one line, and tells the observer.
// Argument and result values are logged only with Options.LogValues.
// failure is the outcome if there is no result (see callOutcome); a call
// that failed after ctx, its request's, ended is OutcomeCancelled, its
// caller's doing, whatever error it failed with.
func (g *Gateway) observeCall(ctx context.Context, req *mcp.CallToolRequest, t *Tool, arguments json.RawMessage, res *mcp.CallToolResult, failure string, start time.Time) {
	s := g.current()
	rec := CallRecord{Outcome: callOutcome(res, failure), Duration: time.Since(start)}
	if ctx.Err() != nil && rec.Outcome != OutcomeOK && rec.Outcome != OutcomeToolError && rec.Outcome != OutcomeInputRequired {
		rec.Outcome = OutcomeCancelled
	}
	if t != nil {
		rec.Domain, rec.Tool = t.Domain.Name, t.LocalName
	}
	if ce := g.logger.Check(zap.InfoLevel, "tool call"); ce != nil {
		ce.Write(g.callLogFields(req, rec, arguments, res, s.logValues)...)
	}
	if s.observer != nil {
		s.observer.ToolCalled(rec)
	}
}

// callLogFields are a tool call's log line's fields; arguments and result
// only with logValues.
func (g *Gateway) callLogFields(req *mcp.CallToolRequest, rec CallRecord, arguments json.RawMessage, res *mcp.CallToolResult, logValues bool) []zap.Field {
	fields := []zap.Field{
		zap.String("identity", g.requestCaller(req)),
		zap.String("domain", rec.Domain),
		zap.String("tool", rec.Tool),
		zap.Duration("duration", rec.Duration),
		zap.String("outcome", rec.Outcome),
	}
	if logValues {
		result, _ := json.Marshal(res)
		fields = append(fields, zap.String("arguments", boundedText(string(arguments))), zap.String("result", boundedText(string(result))))
	}
	return fields
}

// servedKey is the context key of the flag reachHandler sets.
type servedKey struct{}

// reachHandler is h, marking each call it gets as served by a handler of
// the gateway's (see observeUnservedCalls). Every tool the gateway
// registers is registered with it.
func reachHandler(h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if served, ok := ctx.Value(servedKey{}).(*atomic.Bool); ok {
			served.Store(true)
		}
		return h(ctx, req)
	}
}

// observeUnservedCalls is middleware that observes the tool calls the
// MCP SDK answers itself, reaching no handler: those naming a tool the
// session's server does not register (hidden by the caller's access rule,
// not pinned in hybrid mode, a meta-tool's name in passthrough mode, or
// none at all). Each is a call of unknown_tool naming no tool, as
// execute_tool records a name it does not know; calls a handler served
// are observed by it.
func (g *Gateway) observeUnservedCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if !ok {
			return next(ctx, method, req)
		}
		start := time.Now()
		served := new(atomic.Bool)
		res, err := next(context.WithValue(ctx, servedKey{}, served), method, req)
		if err != nil && !served.Load() {
			g.observeCall(ctx, call, nil, nil, nil, string(ErrUnknownTool), start)
		}
		return res, err
	}
}

// observeSearch counts a ranked search, and logs it when it found nothing
// or only weak matches (so that an operator can improve descriptions with
// the `tool` override); the gateway keeps the recent ones (SearchMisses).
func (g *Gateway) observeSearch(req *mcp.CallToolRequest, query string, resp searchResponse) {
	rec := SearchRecord{Query: query, Results: resp.Total, Weak: resp.weak}
	switch {
	case rec.Results == 0:
		g.logger.Info("search found nothing", zap.String("identity", g.requestCaller(req)), zap.String("query", query))
		g.misses.add(query, false)
	case rec.Weak:
		g.logger.Info("search found only weak matches", zap.String("identity", g.requestCaller(req)), zap.String("query", query), zap.String("best", resp.Results[0].Name))
		g.misses.add(query, true)
	}
	if o := g.current().observer; o != nil {
		o.Searched(rec)
	}
}
