package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSecurityRedaction runs a real Caddy whose upstreams carry secrets in
// their URLs (a query parameter, user info) and in headers (one resolved
// per request), with nothing listening at one and, at the other, an
// upstream that refuses every request with an error quoting the
// Authorization header it got. The secrets reach the upstreams (the
// echoing one sees its token) but appear in none of what an operator or a
// model can read: the admin API, the operator page, Caddy's log (at debug
// level, with the access log), /metrics and the model's answers.
func TestSecurityRedaction(t *testing.T) {
	const (
		querySecret  = "q-s3cret-0123456789"
		passSecret   = "p-s3cret-0123456789"
		headerSecret = "h-s3cret-0123456789"
		mixedSecret  = "m-s3cret-0123456789"
	)
	t.Setenv("SECRET", querySecret)
	t.Setenv("SECRET_PASSWORD", passSecret)
	t.Setenv("SECRET_HEADER", headerSecret)
	t.Setenv("SECRET_MIXED", mixedSecret)

	gotToken := make(chan string, 16)
	gotMixed := make(chan string, 16)
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("X-Key"); v != "" {
			select {
			case gotMixed <- v:
			default:
			}
		}
		auth := r.Header.Get("Authorization")
		select {
		case gotToken <- auth:
		default:
		}
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"token %q is not valid here"}}`, auth)
	}))
	t.Cleanup(echo.Close)

	caddy := testenv.StartCaddy(t, fmt.Sprintf(`{
	admin 127.0.0.1:{ADMIN_PORT}
	persist_config off
	debug
}
:{HTTP_PORT} {
	bind 127.0.0.1
	log
	mcp_gateway /mcp {
		upstream x "http://127.0.0.1:9/mcp?api_key={env.SECRET}"
		upstream userinfo "http://gateway:{env.SECRET_PASSWORD}@127.0.0.1:9/mcp?other=1"
		upstream echoing {
			url %s/mcp
			header Authorization "Bearer {env.SECRET_HEADER}"
			header X-Key "{env.SECRET_MIXED}:{http.request.header.X-User}"
			timeout 3s
		}
	}
	handle /ops* {
		mcp_gateway_ui
	}
}
`, echo.URL))

	select {
	case auth := <-gotToken:
		if auth != "Bearer "+headerSecret {
			t.Fatalf("the upstream got Authorization %q, want the configured header", auth)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the echoing upstream was never called")
	}
	// Wait until every upstream has failed at least once, so its error is
	// stored and logged.
	waitUntil(t, "every upstream to report its error", func() bool {
		body, err := procs.AdminGet(caddy.AdminPort, "/mcp_gateway/")
		return err == nil && strings.Count(body, `"last_error"`) == 3
	})

	// A model's view: discover_tools and a call to a down upstream.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "redaction"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: caddy.URL("/mcp")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	var modelSaw strings.Builder
	for _, args := range []map[string]any{{}, {"domain": "x"}, {"domain": "echoing"}} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "discover_tools", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		modelSaw.WriteString(res.Content[0].(*mcp.TextContent).Text)
	}
	modelSaw.WriteString(cs.InitializeResult().Instructions)

	surfaces := map[string]string{"the model's answers": modelSaw.String()}
	for _, path := range []string{"/mcp_gateway/", "/mcp_gateway/catalog", "/metrics"} {
		body, err := procs.AdminGet(caddy.AdminPort, path)
		if err != nil {
			t.Fatal(err)
		}
		surfaces["admin "+path] = body
	}
	resp, err := http.Get(caddy.URL("/ops/"))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	surfaces["the operator page"] = string(page)
	// A call makes the gateway send the per-request header (the secret
	// from the environment, the user from the request) to the upstream.
	callReq := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"execute_tool","arguments":{"tool_name":"echoing.anything"}}}`
	postFor(t, caddy.URL("/mcp"), map[string]string{"Mcp-Session-Id": cs.ID(), "X-User": "alice", "Mcp-Protocol-Version": "2025-11-25"}, callReq)
	select {
	case v := <-gotMixed:
		if v != mixedSecret+":alice" {
			t.Errorf("the upstream got X-Key %q", v)
		}
	case <-time.After(100 * time.Millisecond):
		// The upstream refuses to initialise, so calls fail fast; the
		// per-request value is resolved for each request all the same.
	}
	time.Sleep(500 * time.Millisecond)
	surfaces["Caddy's log"] = caddy.Output()

	for where, text := range surfaces {
		for _, secret := range []string{querySecret, passSecret, headerSecret, mixedSecret} {
			if strings.Contains(text, secret) {
				i := strings.Index(text, secret)
				t.Errorf("%s shows a secret: ...%s...", where, text[max(0, i-200):min(len(text), i+100)])
			}
		}
	}
	// The errors are still useful: they name the upstream's address.
	if !strings.Contains(surfaces["admin /mcp_gateway/"], "127.0.0.1:9/mcp") {
		t.Errorf("the admin API's errors no longer say which address failed:\n%s", surfaces["admin /mcp_gateway/"])
	}
	if !strings.Contains(surfaces["the operator page"], "api_key=REDACTED") {
		t.Errorf("the operator page does not show the redacted URL in the upstream's error:\n%s", surfaces["the operator page"])
	}
}
