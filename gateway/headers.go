package gateway

import (
	"context"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type callHeadersKey struct{}

// callContext returns ctx carrying the headers a call to upstream cfg
// adds for this client request: the client's headers the upstream forwards
// (ForwardHeaders) and the caller's per-request values for that upstream
// (Caller.UpstreamHeaders). Nothing else the client sent ever reaches an
// upstream.
//
// It also says whose call it is, for the upstream's per-identity share of
// its concurrent calls (see callSlots).
func (g *Gateway) callContext(ctx context.Context, extra *mcp.RequestExtra, cfg *UpstreamConfig) context.Context {
	if extra == nil || extra.Header == nil || cfg == nil {
		return ctx
	}
	ctx = withSlotIdentity(ctx, g.callerOf(extra))
	h := http.Header{}
	for _, name := range cfg.ForwardHeaders {
		for _, v := range extra.Header.Values(name) {
			h.Add(name, v)
		}
	}
	for k, vs := range g.callerOf(extra).UpstreamHeaders[cfg.Name] {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	if len(h) == 0 {
		return ctx
	}
	return context.WithValue(ctx, callHeadersKey{}, h)
}

// addCallHeaders sets the headers callContext put in the request's
// context.
func addCallHeaders(req *http.Request) *http.Request {
	h, ok := req.Context().Value(callHeadersKey{}).(http.Header)
	if !ok {
		return req
	}
	req = req.Clone(req.Context())
	for k, vs := range h {
		req.Header.Del(k)
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	return req
}

// carryCallValues returns to carrying what callContext and WithCallTimeout
// put in from (the call's headers and timeout), for a call that outlives
// the request it was made for (pending.go).
func carryCallValues(to, from context.Context) context.Context {
	if h, ok := from.Value(callHeadersKey{}).(http.Header); ok {
		to = context.WithValue(to, callHeadersKey{}, h)
	}
	if d, ok := from.Value(callTimeoutKey{}).(time.Duration); ok {
		to = context.WithValue(to, callTimeoutKey{}, d)
	}
	if id, ok := from.Value(slotIdentityKey{}).(string); ok {
		to = context.WithValue(to, slotIdentityKey{}, id)
	}
	return to
}
