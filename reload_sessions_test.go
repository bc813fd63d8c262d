package mcpgateway

import (
	"context"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/caddyserver/caddy/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSessionTimeoutChangeEndsTheOldSessions: a reload that changes
// session_timeout gives the gateway a new HTTP edge, which knows none of
// the old sessions (their clients start new ones). The old sessions end
// then, rather than holding their places among max_sessions, and their
// own upstream sessions, until the old timeout; a call in flight on one
// finishes first.
func TestSessionTimeoutChangeEndsTheOldSessions(t *testing.T) {
	url := upstreamServer(t).URL
	cfg := func(timeout time.Duration) *Handler {
		return &Handler{Name: "session-timeout-change", SessionTimeout: caddy.Duration(timeout),
			Config: gateway.Config{Upstreams: []*gateway.UpstreamConfig{{Name: "up", Connection: gateway.Connection{URL: url}}}}}
	}
	old := cfg(time.Hour)
	// A client of a revision with sessions.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: serve(t, old).URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got, res := execute(t, cs, "up.whoami"); res.IsError {
		t.Fatalf("control: %s", got)
	}
	gw := old.frontend.gw
	if n := gw.SessionCount(); n != 1 {
		t.Fatalf("control: %d sessions open, want 1", n)
	}
	// A call in flight across the reload finishes first.
	slow := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: gateway.ExecuteToolName, Arguments: map[string]any{"tool_name": "up.slow"}})
		switch {
		case err != nil:
			slow <- err.Error()
		case res.IsError:
			slow <- "error result"
		default:
			slow <- res.Content[0].(*mcp.TextContent).Text
		}
	}()
	time.Sleep(300 * time.Millisecond)
	next := cfg(2 * time.Hour)
	serve(t, next)
	if err := old.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if got := <-slow; got != "done" {
		t.Errorf("a call in flight as session_timeout changed ended with %q, want its result", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for gw.SessionCount() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := gw.SessionCount(); n != 0 {
		t.Errorf("%d sessions of the replaced edge still open (and counted against max_sessions) after session_timeout changed", n)
	}
}
