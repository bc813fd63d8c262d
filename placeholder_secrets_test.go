package mcpgateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/caddyserver/caddy/v2"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The values of {env.*} placeholders are secrets wherever the operator
// puts them in a connection: that is what the placeholder is for
// ("secrets stay out of the Caddyfile"). Beside the fields that always
// hold secrets (the URL's user info and query values, header values,
// stdio env values), that is the URL's path, as Zapier-style MCP URLs
// carry their key; a stdio server's arguments, as many servers take
// --api-key; and the constant part of a header value that also holds a
// request placeholder. What is no credential, and what errors must still
// name, stays readable: the URL's host, an absolute path.

// adminGET serves GET path of the admin API and returns the body.
func adminGET(t *testing.T, path string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if err := (adminAPI{}).serve(rec, req); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return rec.Body.String()
}

// servedOperatorPage serves the operator page of gateway name.
func servedOperatorPage(t *testing.T, name string) string {
	t.Helper()
	ui := &OperatorUI{Gateway: name}
	if err := ui.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	if err := ui.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ops", nil), nil); err != nil {
		t.Fatalf("operator page: %v", err)
	}
	return rec.Body.String()
}

// TestURLPathPlaceholderValueIsNeverShown: an upstream URL whose path
// holds an {env.*} secret, with nothing listening: the admin API, the
// operator page and `caddy mcp-gateway domains` (all fed by
// Gateway.Upstreams' last_error, which quotes the URL with RedactURL,
// path kept) never show the secret, and still name the address, its host
// an {env.*} value too.
func TestURLPathPlaceholderValueIsNeverShown(t *testing.T) {
	const secret = "zk9Qw7xPathSecret4411"
	t.Setenv("GATEWAY_TEST_PATH_KEY", secret)
	t.Setenv("GATEWAY_TEST_PATH_HOST", "127.0.0.1")
	h := &Handler{Name: "url-path-secret", Config: gateway.Config{Upstreams: []*gateway.UpstreamConfig{{
		Name:       "zap",
		Connection: gateway.Connection{URL: "http://{env.GATEWAY_TEST_PATH_HOST}:9/api/mcp/s/{env.GATEWAY_TEST_PATH_KEY}/mcp", Timeout: gateway.Duration(2 * time.Second)},
	}}}}
	serve(t, h)
	select {
	case <-h.gw.Started():
	case <-time.After(10 * time.Second):
		t.Fatal("the upstream's first attempt did not end")
	}
	var seen []string
	body := adminGET(t, "/mcp_gateway/")
	if strings.Contains(body, secret) {
		seen = append(seen, "admin API GET /mcp_gateway/: "+lineWith(body, secret))
	}
	if !strings.Contains(body, "http://127.0.0.1:9/api/mcp/s/"+gateway.Redacted+"/mcp") {
		t.Errorf("the admin API's last_error no longer names the address: %s", lineWith(body, "last_error"))
	}
	if body := servedOperatorPage(t, "url-path-secret"); strings.Contains(body, secret) {
		seen = append(seen, "operator page: "+lineWith(body, secret))
	}
	var out strings.Builder
	if err := printDomains(&out, h.gw); err == nil && strings.Contains(out.String(), secret) {
		seen = append(seen, "caddy mcp-gateway domains: "+lineWith(out.String(), secret))
	}
	if len(seen) > 0 {
		t.Errorf("the {env.*} value in the upstream URL's path is shown:\n %s", strings.Join(seen, "\n "))
	}
}

// keyQuotingUpstream refuses every call with an error naming the key part
// ("<key>:<user>") of the X-Api-Key header it got, as a server that splits
// the value would.
func keyQuotingUpstream(t *testing.T) *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream"}, nil)
	s.AddTool(&mcp.Tool{Name: "check", Description: "Check the credentials.", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			key, _, _ := strings.Cut(req.Extra.Header.Get("X-Api-Key"), ":")
			return nil, &jsonrpc.Error{Code: -32001, Message: "unknown key " + key}
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	return ts
}

// TestPerRequestHeaderKeepsItsPlaceholderSecret: a header value that holds
// both an {env.*} secret and a request placeholder is sent with each call,
// not with the connection, and the call knows only its whole value; an
// upstream error quoting the {env.*} value alone still never reaches the
// client.
func TestPerRequestHeaderKeepsItsPlaceholderSecret(t *testing.T) {
	const secret = "sk-live-hdr-0123456789"
	t.Setenv("GATEWAY_TEST_HEADER_KEY", secret)
	cs := provision(t, &Handler{Name: "header-secret", Config: gateway.Config{Upstreams: []*gateway.UpstreamConfig{{
		Name: "up",
		Connection: gateway.Connection{
			URL:     keyQuotingUpstream(t).URL,
			Headers: http.Header{"X-Api-Key": {"{env.GATEWAY_TEST_HEADER_KEY}:{http.auth.user.id}"}},
		},
	}}}})
	text, res := execute(t, cs, "up.check")
	if !res.IsError {
		t.Fatalf("the call succeeded: %s", text)
	}
	if strings.Contains(text, secret) {
		t.Errorf("the header's {env.*} secret reaches the client's error: %s", text)
	}
}

// TestStdioArgumentPlaceholderValueStaysOutOfLogs: a stdio upstream
// started with its key as an argument ({env.*}) prints it on stderr, as
// servers do when the key is refused; the gateway logs stderr line by
// line ("upstream stderr") without the key, and with the data folder
// another argument ({env.*}, an absolute path) names.
func TestStdioArgumentPlaceholderValueStaysOutOfLogs(t *testing.T) {
	const secret = "ak-ArgSecret-99887766"
	t.Setenv("GATEWAY_TEST_ARG_KEY", secret)
	dataDir := t.TempDir()
	t.Setenv("GATEWAY_TEST_ARG_DIR", dataDir)
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	cfg := `{"admin":{"disabled":true,"config":{"persist":false}},"logging":{"logs":{"default":{"writer":{"output":"file","filename":"` + logFile + `"},"encoder":{"format":"json"},"level":"DEBUG"}}}}`
	if err := caddy.Load([]byte(cfg), true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { caddy.Load([]byte(`{"admin":{"disabled":true,"config":{"persist":false}}}`), true) })
	ctx, cancel := caddy.NewContext(caddy.ActiveContext())
	t.Cleanup(cancel)
	h := &Handler{Name: "stdio-arg-secret", Config: gateway.Config{Upstreams: []*gateway.UpstreamConfig{{
		Name: "tool",
		Connection: gateway.Connection{
			Command: "sh",
			Args:    []string{"-c", `echo "invalid api key: $1 (data in $2)" >&2; exit 3`, "server", "{env.GATEWAY_TEST_ARG_KEY}", "{env.GATEWAY_TEST_ARG_DIR}"},
			Timeout: gateway.Duration(5 * time.Second),
		},
	}}}}
	if err := h.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Cleanup() })
	if err := startConfig(t, ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.gw.Started():
	case <-time.After(10 * time.Second):
		t.Fatal("the upstream's first attempt did not end")
	}
	var logs string
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(logFile)
		if logs = string(b); strings.Contains(logs, "upstream stderr") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(logs, "upstream stderr") {
		t.Fatalf("the server's stderr was not logged:\n%s", logs)
	}
	if strings.Contains(logs, secret) {
		t.Errorf("the {env.*} value of a stdio argument reaches the log: %s", lineWith(logs, secret))
	}
	if !strings.Contains(logs, "(data in "+dataDir+")") {
		t.Errorf("the log no longer names the data folder: %s", lineWith(logs, "upstream stderr"))
	}
}

// lineWith is the first line of s holding sub.
func lineWith(s, sub string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if strings.Contains(line, sub) {
			return strings.TrimSpace(line)
		}
	}
	return ""
}
