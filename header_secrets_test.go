package mcpgateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rejectingUpstream has one tool, check, that refuses every call with a
// JSON-RPC error quoting the credentials it was sent, as some servers'
// "invalid token ..." errors do.
func rejectingUpstream(t *testing.T) *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream"}, nil)
	s.AddTool(&mcp.Tool{Name: "check", Description: "Check the credentials.", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: -32001, Message: "invalid credentials: " + req.Extra.Header.Get("X-Api-Key")}
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	return ts
}

// TestHeaderSecretsNeverReachAnError: the value of an upstream's `header`
// line never reaches an error a client reads (README, Security: "the
// values of its header lines never appear in errors, logs, ..."), also
// when the value holds a request placeholder beside the secret (a key
// that carries the caller's identity), which makes it a per-request
// header sent with each call rather than with the connection.
func TestHeaderSecretsNeverReachAnError(t *testing.T) {
	const secret = "sk-live-0123456789abcdef"
	t.Setenv("GATEWAY_AUDIT_KEY", secret)
	for _, tc := range []struct{ name, value string }{
		{"constant header", "{env.GATEWAY_AUDIT_KEY}"},
		{"per-request header", "{env.GATEWAY_AUDIT_KEY}:{http.auth.user.id}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := provision(t, &Handler{Config: gateway.Config{Upstreams: []*gateway.UpstreamConfig{{
				Name: "up",
				Connection: gateway.Connection{
					URL:     rejectingUpstream(t).URL,
					Headers: http.Header{"X-Api-Key": {tc.value}},
				},
			}}}})
			text, res := execute(t, cs, "up.check")
			if !res.IsError {
				t.Fatalf("the call succeeded: %s", text)
			}
			if strings.Contains(text, secret) {
				t.Errorf("the header's secret reaches the client's error: %s", text)
			}
		})
	}
}
