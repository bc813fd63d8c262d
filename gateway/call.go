package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// callTool calls tool t upstream on behalf of a client's tools/call (of
// execute_tool or of a passthrough tool), in full duplex: through the
// client's own upstream session for a per_client upstream; with the
// client's progress token honoured (the upstream call gets a token of its
// own, mapped back); with the client's _meta passed on; with the
// upstream's questions carried to the client and its answers back (see
// mrtr.go), and an upstream's URL elicitation required (-32042) asked
// of a client of the stateless revision as a question too
// (urlelicitation.go); and cancelled when the client cancels.
func (g *Gateway) callTool(ctx context.Context, req *mcp.CallToolRequest, t *Tool, arguments json.RawMessage) (res *mcp.CallToolResult, err error) {
	u, relay, err := g.upstreamFor(req, t.Domain)
	if err != nil {
		return nil, err
	}
	if relay != nil {
		defer relay.track(ctx)()
	}
	cfg := g.current().byName[t.Domain.Name]
	ctx = g.callContext(ctx, req.Extra, cfg)
	if cfg != nil {
		if o, ok := cfg.Tools[t.UpstreamName]; ok && o.Timeout > 0 {
			ctx = WithCallTimeout(ctx, time.Duration(o.Timeout))
		}
	}
	var onProgress func(*mcp.ProgressNotificationParams)
	if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
		onProgress = func(p *mcp.ProgressNotificationParams) {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: p.Progress, Total: p.Total, Message: p.Message,
			})
		}
	}
	params := &mcp.CallToolParams{Meta: forwardedMeta(req.Params.Meta), Name: t.UpstreamName, Arguments: arguments}
	x := g.exchange(req, declaredCapabilities(req.Params.Meta, req.ClientCapabilities), req.ProtocolVersion(), "tools/call", t.Domain.Name, t.UpstreamName, arguments)
	round, err := x.prepare(u, &params.Meta, req.Params.RequestState)
	if err != nil {
		return nil, err
	}
	answers, err := x.urlRetry(round, req.Params.InputResponses)
	if err != nil {
		return nil, err
	}
	// However the call goes (held or not), the upstream's -32042 is asked
	// of a stateless caller as a question.
	defer func() {
		res, err = urlAnswer(ctx, x, round, u.redact, res, err, func(reqs mcp.InputRequestMap, state string) *mcp.CallToolResult {
			return &mcp.CallToolResult{InputRequests: reqs, RequestState: state}
		})
	}()
	switch {
	case round.Pending != "":
		return g.resumeHeldCall(ctx, x, round.Pending, answers)
	case g.holdsCalls(x, t.Domain):
		return g.startHeldCall(ctx, x, t, params)
	}
	if onProgress != nil && relay != nil {
		// The client's own upstream session can carry the client's own
		// token: nobody else's calls share it. (Set in _meta directly: the
		// SDK's setter refuses the float64 a JSON number decodes to.)
		if params.Meta == nil {
			params.Meta = mcp.Meta{}
		}
		params.Meta["progressToken"] = req.Params.GetProgressToken()
	}
	rounds := 0
	res, err = follow(ctx, x, answers, round.Upstream, func(answers mcp.InputResponseMap, state string) (*mcp.CallToolResult, error) {
		if rounds++; rounds > 1 {
			// The gateway asked the caller and retries with its answers:
			// a reload meanwhile may have replaced the domain's connection
			// (closing the old one, idle between rounds) or put the tool
			// out of the caller's reach. The retry goes as the caller's
			// own would: through the connection in force, if the caller
			// may still call the tool.
			next, untrack, err := g.retryUpstream(ctx, req, t)
			if err != nil {
				return nil, err
			}
			defer untrack()
			u = next
		}
		p := *params
		p.InputResponses, p.RequestState = answers, state
		return u.CallTool(ctx, &p, onProgress)
	})
	if res != nil {
		res.Meta = withoutReservedMeta(res.Meta)
	}
	if err == nil && truncateResult(res, t.Name, g.current().cfg.ResultLimit()) {
		g.logger.Warn("tool result over max_result_size cut short", zap.String("tool", t.Name), zap.Any("original_bytes", res.Meta[TruncatedMetaKey]))
	}
	return res, err
}

// retryUpstream is the upstream session a retry of a call of tool t
// with its caller's answers goes through (see callTool), and the function
// that ends tracking the call on it; a refusal if the configuration in
// force no longer lets the caller call t.
func (g *Gateway) retryUpstream(ctx context.Context, req *mcp.CallToolRequest, t *Tool) (*Upstream, func(), error) {
	s, d := g.current(), g.Catalog().Domain(t.Domain.Name)
	if d == nil || !s.mayCall(g.callerOf(req.GetExtra()), t.Domain.Name, t.LocalName, t.UpstreamName) {
		return nil, nil, refuse(jsonrpc.CodeInvalidParams, "tool %q is no longer available to this client: the gateway's configuration changed while the client answered its questions", t.Name)
	}
	u, relay, err := g.upstreamFor(req, d)
	if err != nil {
		return nil, nil, err
	}
	if relay != nil {
		return u, relay.track(ctx), nil
	}
	return u, func() {}, nil
}

// withoutReservedMeta is an upstream result's _meta without the keys the
// protocol reserves (io.modelcontextprotocol/...), which describe the
// upstream's side of its own connection (its serverInfo) that the
// gateway's answer states for itself, and without the gateway's own
// (gatewayMetaPrefix): an upstream's result that set ErrorMetaKey would
// read as a gateway error to the client, and choose the outcome label of
// the call's metrics.
func withoutReservedMeta(m mcp.Meta) mcp.Meta {
	for k := range m {
		if strings.HasPrefix(k, "io.modelcontextprotocol/") || strings.HasPrefix(k, gatewayMetaPrefix) {
			delete(m, k)
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// forwardedMeta is the client's _meta without what belongs to the
// client's own connection: its progress token (the upstream call gets its
// own) and the protocol's reserved keys (protocol version, client info,
// ..., which the gateway's upstream session states for itself).
func forwardedMeta(m mcp.Meta) mcp.Meta {
	if len(m) == 0 {
		return nil
	}
	out := make(mcp.Meta, len(m))
	for k, v := range m {
		if k != "progressToken" && !strings.HasPrefix(k, "io.modelcontextprotocol/") {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
