package mcpgateway

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// upstreamServer is a go-sdk MCP server over HTTP with two tools: whoami
// answers with the Authorization header it received, slow sleeps.
func upstreamServer(t *testing.T) *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream"}, nil)
	s.AddTool(&mcp.Tool{Name: "whoami", Description: "Echo the caller's credentials.", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: req.Extra.Header.Get("Authorization")}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "slow", Description: "Take two seconds.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-time.After(2 * time.Second):
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	return ts
}

// provision provisions a handler the way Caddy does and serves it over
// HTTP; it returns a connected client.
func provision(t *testing.T, h *Handler) *mcp.ClientSession {
	t.Helper()
	srv := serve(t, h)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func execute(t *testing.T, cs *mcp.ClientSession, tool string) (string, *mcp.CallToolResult) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: gateway.ExecuteToolName, Arguments: map[string]any{"tool_name": tool}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res
}

func TestHeaderPlaceholdersReachTheUpstream(t *testing.T) {
	t.Setenv("GATEWAY_TEST_TOKEN", "s3cret")
	cs := provision(t, &Handler{Config: gateway.Config{Upstreams: []*gateway.UpstreamConfig{{
		Name: "up",
		Connection: gateway.Connection{
			URL:     upstreamServer(t).URL,
			Headers: http.Header{"Authorization": {"Bearer {env.GATEWAY_TEST_TOKEN}"}},
		},
	}}}})
	if got, _ := execute(t, cs, "up.whoami"); got != "Bearer s3cret" {
		t.Errorf("the upstream received Authorization %q, want the placeholder resolved", got)
	}
}

func TestUpstreamTimeout(t *testing.T) {
	cs := provision(t, &Handler{Config: gateway.Config{Upstreams: []*gateway.UpstreamConfig{{
		Name:       "up",
		Connection: gateway.Connection{URL: upstreamServer(t).URL, Timeout: gateway.Duration(300 * time.Millisecond)},
	}}}})
	start := time.Now()
	text, res := execute(t, cs, "up.slow")
	if elapsed := time.Since(start); elapsed > 1500*time.Millisecond {
		t.Errorf("a call with a 300ms timeout took %s", elapsed)
	}
	var e struct{ Error string }
	json.Unmarshal([]byte(text), &e)
	if !res.IsError || res.Meta[gateway.ErrorMetaKey] != string(gateway.ErrTimeout) || !strings.Contains(e.Error, "did not answer within 300ms") {
		t.Errorf("slow call = %s %v", text, res.Meta)
	}
	// The upstream is still usable afterwards.
	if got, _ := execute(t, cs, "up.whoami"); got != "" {
		t.Errorf("whoami after a timeout = %q", got)
	}
}

func TestUpstreamsAreSharedAcrossConfigs(t *testing.T) {
	url := upstreamServer(t).URL
	cfg := func(desc string) *Handler {
		return &Handler{Config: gateway.Config{Upstreams: []*gateway.UpstreamConfig{{Name: "up", Description: desc, Connection: gateway.Connection{URL: url}}}}}
	}
	old, next := cfg("old"), cfg("new: a catalog-only change")
	provision(t, old)
	nextClient := provision(t, next)
	key := old.poolKeys[0]
	if refs, ok := upstreams.References(key); !ok || refs != 2 || next.poolKeys[0] != key {
		t.Fatalf("two configs with the same connection hold %d references to it", refs)
	}
	if err := old.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if refs, ok := upstreams.References(key); !ok || refs != 1 {
		t.Fatalf("after the old config's cleanup the connection has %d references", refs)
	}
	if got, _ := execute(t, nextClient, "up.whoami"); got != "" {
		t.Errorf("after the old config's cleanup, the new config's call answers %q", got)
	}
}

func TestStatelessMode(t *testing.T) {
	cs := provision(t, &Handler{
		Config:    gateway.Config{Upstreams: []*gateway.UpstreamConfig{{Name: "up", Connection: gateway.Connection{URL: upstreamServer(t).URL}}}},
		Stateless: true,
	})
	if cs.ID() != "" {
		t.Errorf("a stateless gateway handed out session %q", cs.ID())
	}
	if got, res := execute(t, cs, "up.whoami"); res.IsError {
		t.Errorf("execute in stateless mode: %s", got)
	}
}

func TestPassthroughNameCollisionFailsTheConfigStart(t *testing.T) {
	empty := ""
	h := &Handler{Config: gateway.Config{Mode: gateway.ModePassthrough, Upstreams: []*gateway.UpstreamConfig{
		{Name: "first", Prefix: &empty, Connection: gateway.Connection{URL: upstreamServer(t).URL}},
		{Name: "second", Prefix: &empty, Connection: gateway.Connection{URL: upstreamServer(t).URL}},
	}}}
	ctx, cancel := testContext(t)
	defer cancel()
	if err := h.Provision(ctx); err != nil {
		t.Fatalf("provisioning: %v", err)
	}
	err := startConfig(t, ctx)
	h.Cleanup()
	if err == nil || !strings.Contains(err.Error(), `tool "whoami" is in both upstream "first" and upstream "second"`) {
		t.Errorf("starting two unprefixed upstreams with the same tools: %v", err)
	}
}

// TestProvisionReachesNoUpstream: provisioning (all caddy validate does)
// neither connects to an HTTP upstream nor starts a stdio one; starting
// the config does.
func TestProvisionReachesNoUpstream(t *testing.T) {
	var hits atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "no", http.StatusServiceUnavailable)
	}))
	defer ts.Close()
	marker := filepath.Join(t.TempDir(), "started")
	h := &Handler{Config: gateway.Config{Upstreams: []*gateway.UpstreamConfig{
		{Name: "web", Connection: gateway.Connection{URL: ts.URL}},
		{Name: "proc", Connection: gateway.Connection{Command: "sh", Args: []string{"-c", "touch " + marker + "; sleep 5"}}},
	}}}
	ctx, cancel := testContext(t)
	defer cancel()
	if err := h.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if n := hits.Load(); n != 0 {
		t.Errorf("provisioning sent %d requests to the HTTP upstream", n)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("provisioning started the stdio upstream's process")
	}
	if err := startConfig(t, ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for hits.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if hits.Load() == 0 {
		t.Error("starting the config did not connect to the HTTP upstream")
	}
	h.Cleanup()
}

// testContext is a provisioning context belonging to a config of its own,
// loaded (empty) as Caddy loads one, so that handlers can load apps; each
// call is a new config, as a reload is.
func testContext(t *testing.T) (caddy.Context, context.CancelFunc) {
	t.Helper()
	if err := caddy.Load([]byte(`{"admin":{"disabled":true}}`), true); err != nil {
		t.Fatalf("loading an empty config: %v", err)
	}
	return caddy.NewContext(caddy.ActiveContext())
}

// startConfig does what starting a config does for the gateway: it starts
// the upstream starter app the handlers registered with.
func startConfig(t *testing.T, ctx caddy.Context) error {
	t.Helper()
	app, err := ctx.App("mcp_gateway")
	if err != nil {
		t.Fatal(err)
	}
	return app.(caddy.App).Start()
}

// serve provisions and validates h the way Caddy does, and returns an
// HTTP server for it (without a client).
func serve(t *testing.T, h *Handler) *httptest.Server {
	t.Helper()
	ctx, cancel := testContext(t)
	t.Cleanup(cancel)
	if err := h.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Cleanup() })
	if err := startConfig(t, ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Caddy puts a replacer in every request's context.
		repl := caddy.NewReplacer()
		r = r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, repl))
		if err := h.ServeHTTP(w, r, nil); err != nil {
			var he caddyhttp.HandlerError
			if errors.As(err, &he) {
				w.WriteHeader(he.StatusCode)
				return
			}
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, url string, header http.Header, host string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestAllowedHostsAndNoMatchingPolicy(t *testing.T) {
	h := &Handler{
		Config:       gateway.Config{Upstreams: []*gateway.UpstreamConfig{{Name: "up", Connection: gateway.Connection{URL: upstreamServer(t).URL}}}},
		AllowedHosts: []string{"mcp.example.com", "*.internal.example.com"},
		Access: []*AccessPolicy{{
			MatcherSetsRaw: caddyhttp.RawMatcherSets{{"header": json.RawMessage(`{"X-Role":["admin"]}`)}},
		}},
	}
	srv := serve(t, h)
	admin := http.Header{"X-Role": {"admin"}}
	for host, want := range map[string]int{
		"mcp.example.com":            http.StatusOK, // allowed behind a same-host proxy, on loopback
		"a.internal.example.com:443": http.StatusOK,
		"evil.example.com":           http.StatusForbidden,
		"internal.example.com.evil":  http.StatusForbidden,
	} {
		if got := post(t, srv.URL, admin, host); got != want {
			t.Errorf("Host %s: %d, want %d", host, got, want)
		}
	}
	if got := post(t, srv.URL, http.Header{}, "mcp.example.com"); got != http.StatusForbidden {
		t.Errorf("a request no access policy matches: %d, want 403", got)
	}
}
