package gateway

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// UpstreamHeadersHeader is how the server in front of the gateway passes,
// with each client request, header values for upstreams that depend on the
// request (the caller's identity, say): a JSON object from upstream name to
// header name to value. The server must remove any such header a client
// sent: the gateway trusts it.
const UpstreamHeadersHeader = "Mcp-Gateway-Upstream-Headers"

type callHeadersKey struct{}

// callContext returns ctx carrying the headers a call to upstream cfg
// adds for this client request: the client's headers the upstream forwards
// (ForwardHeaders) and the per-request values of UpstreamHeadersHeader.
// Nothing else the client sent ever reaches an upstream.
func callContext(ctx context.Context, extra *mcp.RequestExtra, cfg *UpstreamConfig) context.Context {
	if extra == nil || extra.Header == nil || cfg == nil {
		return ctx
	}
	h := http.Header{}
	for _, name := range cfg.ForwardHeaders {
		for _, v := range extra.Header.Values(name) {
			h.Add(name, v)
		}
	}
	if raw := extra.Header.Get(UpstreamHeadersHeader); raw != "" {
		var byUpstream map[string]map[string]string
		if json.Unmarshal([]byte(raw), &byUpstream) == nil {
			for k, v := range byUpstream[cfg.Name] {
				h.Set(k, v)
			}
		}
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
