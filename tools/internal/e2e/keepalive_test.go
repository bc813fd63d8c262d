package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCallsThroughCaddyKeepTheirConnections: through a real Caddy, calls
// to an HTTP upstream that answers with event streams (the SDKs' default)
// reuse the gateway's connection to it, for clients of both eras; and a
// call's answer reaches the client as plain JSON when nothing else is
// sent with it.
func TestCallsThroughCaddyKeepTheirConnections(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo"}, nil)
	type args struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Answer with the text given."}, func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	var conns atomic.Int64
	up := httptest.NewUnstartedServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	up.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			conns.Add(1)
		}
	}
	up.Start()
	t.Cleanup(up.Close)

	caddy := testenv.StartCaddy(t, fmt.Sprintf(`{
	admin off
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	mcp_gateway /mcp* {
		upstream echo %s
	}
}
`, up.URL))
	call := &mcp.CallToolParams{Name: "execute_tool", Arguments: map[string]any{"tool_name": "echo.echo", "arguments": map[string]any{"text": "hi"}}}
	for _, version := range []string{"", testenv.SessionRevision} {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: caddy.URL("/mcp")}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		callOnce := func() {
			p := *call
			p.Meta = nil
			res, err := cs.CallTool(context.Background(), &p)
			if err != nil || res.IsError {
				t.Fatalf("execute_tool (client version %q): %v %v", version, err, res)
			}
		}
		callOnce()
		before := conns.Load()
		const calls = 300
		for range calls {
			callOnce()
		}
		if opened := conns.Load() - before; opened > calls/100 {
			t.Errorf("client version %q: the gateway opened %d connections to the upstream over %d calls, want at most %d", version, opened, calls, calls/100)
		}
		cs.Close()
	}

	// A stateless call on the wire: the answer is a JSON body.
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_tool","arguments":{"tool_name":"echo.echo","arguments":{"text":"hi"}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, caddy.URL("/mcp"), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "execute_tool")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" || !strings.HasPrefix(string(b), `{"jsonrpc":"2.0","id":1,"result":`) {
		t.Errorf("a stateless call through Caddy: %d %q %s; want its JSON-RPC answer as application/json", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
}
