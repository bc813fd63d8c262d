package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap/zaptest"
)

// stdioServerEnv makes the test binary act as a stdio MCP server (see
// TestMain), so stdio upstreams are tested with a real process.
const stdioServerEnv = "GATEWAY_TEST_STDIO_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(stdioServerEnv); mode != "" {
		s := mcp.NewServer(&mcp.Implementation{Name: "stdio-test"}, nil)
		addTextTool(s, "echo", "Echo the message back", "stdio says hi")
		if mode == "hostile" {
			addHostileStdioTools(s)
		}
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	if conn := os.Getenv(holdUpstreamEnv); conn != "" {
		os.Exit(holdUpstream(conn)) // see supervise_test.go
	}
	os.Exit(m.Run())
}

// addTextTool adds a tool taking an optional string "message" that answers
// with fixed text.
func addTextTool(s *mcp.Server, name, desc, answer string) {
	s.AddTool(&mcp.Tool{
		Name:        name,
		Description: desc,
		InputSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"message": map[string]any{"type": "string", "description": "what to say"}},
		},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: answer}}}, nil
	})
}

// serveHTTP serves s over streamable HTTP on a loopback test server.
func serveHTTP(t *testing.T, s *mcp.Server) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	return ts
}

// testGateway is a started gateway with a connected client session.
type testGateway struct {
	*Gateway
	client *mcp.ClientSession
}

// startGateway connects to the configured upstreams, waits for their first
// attempts, and connects a client to the gateway's MCP server.
func startGateway(t *testing.T, cfg Config) *testGateway {
	t.Helper()
	return startGatewayWith(t, cfg, Options{})
}

// startGatewayWith is startGateway with options (access rules, ...); the
// client it connects is served the first rule's view. The upstream
// connections log where the gateway does (opts.Logger, else the test's
// log).
func startGatewayWith(t *testing.T, cfg Config, opts Options) *testGateway {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = zaptest.NewLogger(t)
	}
	logger := opts.Logger
	ups := make([]*Upstream, len(cfg.Upstreams))
	for i, u := range cfg.Upstreams {
		ups[i] = NewUpstream(u.Connection, UpstreamOptions{Logger: logger.Named(u.Name), Discovery: true})
	}
	g, err := New(cfg, ups, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		g.Close()
		for _, u := range ups {
			u.Close()
		}
	})
	select {
	case <-g.Started():
	case <-time.After(20 * time.Second):
		t.Fatal("upstreams did not start within 20s")
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := g.Server().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &testGateway{Gateway: g, client: cs}
}

// connectIn connects client c to server srv in memory, speaking
// 2025-11-25 (whose sessions carry server-to-client requests and
// notifications), and closes the session when the test ends.
func connectIn(t *testing.T, srv *mcp.Server, c *mcp.Client) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a meta-tool and fails the test on a protocol error.
func (tg *testGateway) call(t *testing.T, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := tg.client.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", tool, args, err)
	}
	return res
}

// callJSON calls a meta-tool expected to succeed and decodes its JSON text.
func callJSON[T any](t *testing.T, tg *testGateway, tool string, args any) T {
	t.Helper()
	res := tg.call(t, tool, args)
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", tool, args, text(res))
	}
	var v T
	if err := json.Unmarshal([]byte(text(res)), &v); err != nil {
		t.Fatalf("%s(%v): decoding %q: %v", tool, args, text(res), err)
	}
	return v
}

// callError calls a meta-tool expected to fail with a gateway error and
// returns the error text, checking the code in _meta.
func callError(t *testing.T, tg *testGateway, tool string, args any, code ErrorCode) string {
	t.Helper()
	res := tg.call(t, tool, args)
	if !res.IsError {
		t.Fatalf("%s(%v) succeeded, want %s error: %s", tool, args, code, text(res))
	}
	if got := res.Meta[ErrorMetaKey]; got != string(code) {
		t.Fatalf("%s(%v): error code %v, want %s (%s)", tool, args, got, code, text(res))
	}
	var e struct{ Error string }
	if err := json.Unmarshal([]byte(text(res)), &e); err != nil || e.Error == "" {
		t.Fatalf("%s(%v): error is not {\"error\": ...}: %q", tool, args, text(res))
	}
	return e.Error
}

// text is the text of a result's first content block.
func text(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

func httpUpstream(name, url string) *UpstreamConfig {
	return &UpstreamConfig{Name: name, Connection: Connection{URL: url, Timeout: Duration(10 * time.Second)}}
}

// wantError fails t unless err is nil where want is "", and otherwise an
// error whose text holds want; about names what was checked ("" for
// nothing more than the test's name).
func wantError(t *testing.T, about string, err error, want string) {
	t.Helper()
	if about != "" {
		about += ": "
	}
	switch {
	case want == "" && err != nil:
		t.Errorf("%sunexpected error: %v", about, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%serror = %v, want one containing %q", about, err, want)
	}
}

// heldCount is how many calls the gateway holds for their callers.
func (g *Gateway) heldCount() int {
	g.held.mu.Lock()
	defer g.held.mu.Unlock()
	return len(g.held.byID)
}

// open is how many upstream sessions clients have of their own on domain.
func (c *clientSessions) open(domain string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.perUp[domain]
}
