package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// quotingServer refuses every tool call, resource read and prompt get
// with a JSON-RPC error quoting the X-Api-Key header it was sent, as
// servers' "invalid key ..." errors do.
func quotingServer(t *testing.T) *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "quoting"}, nil)
	refuse := func(h http.Header) error {
		return &jsonrpc.Error{Code: -32001, Message: "invalid credentials: " + h.Get("X-Api-Key"),
			Data: json.RawMessage(`{"sent":"` + h.Get("X-Api-Key") + `"}`)}
	}
	s.AddTool(&mcp.Tool{Name: "check", Description: "Check the credentials.", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, refuse(req.Extra.Header)
		})
	s.AddResource(&mcp.Resource{URI: "quoting://doc", Name: "doc"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, refuse(req.Extra.Header)
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet"},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return nil, refuse(req.Extra.Header)
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	return ts
}

// TestPassthroughErrorsKeepHeaderSecrets: the value of an upstream's
// `header` line never reaches an error a client reads (README, Security:
// "never appear in errors ... should the upstream's error quote them").
// TestHeaderSecretsNeverReachAnError checks it for execute_tool; in
// passthrough mode the upstream's JSON-RPC error is handed to the client
// with its own code, message and data, redacted like any other: for
// tools/call, resources/read and prompts/get alike.
func TestPassthroughErrorsKeepHeaderSecrets(t *testing.T) {
	const secret = "sk-live-0123456789abcdef"
	up := &UpstreamConfig{Name: "crm", Connection: Connection{
		URL:     quotingServer(t).URL,
		Headers: http.Header{"X-Api-Key": {secret}},
		Timeout: Duration(10 * time.Second),
	}}
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{up}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	var seen []string
	check := func(what string, err error) {
		if err == nil {
			t.Errorf("%s succeeded; the upstream refuses it", what)
			return
		}
		if strings.Contains(err.Error(), secret) {
			seen = append(seen, what+": "+err.Error())
		}
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) || wire.Code != -32001 {
			t.Errorf("%s: %v, want the upstream's own error code -32001", what, err)
		} else if strings.Contains(string(wire.Data), secret) {
			seen = append(seen, what+" data: "+string(wire.Data))
		}
	}
	res, err := tg.client.CallTool(ctx, &mcp.CallToolParams{Name: "crm_check", Arguments: map[string]any{}})
	if err == nil && res.IsError {
		if strings.Contains(text(res), secret) {
			seen = append(seen, "tools/call: "+text(res))
		}
	} else {
		check("tools/call", err)
	}
	_, err = tg.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "quoting://doc"})
	check("resources/read", err)
	_, err = tg.client.GetPrompt(ctx, &mcp.GetPromptParams{Name: "crm_greet"})
	check("prompts/get", err)
	if len(seen) > 0 {
		t.Errorf("the header's secret reaches the client's error:\n %s", strings.Join(seen, "\n "))
	}
}
