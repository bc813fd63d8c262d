package gateway

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client of the 2026-07-28 revision cancels a request by closing its
// HTTP request, and sends no notifications/cancelled: the revision has
// the server treat the hang-up as the cancellation. The gateway ends the
// call, and its upstream's request, at once, not when the call's timeout
// would have.

// thinker is an upstream whose tool think works until its request is
// cancelled (or for a minute); running counts the handlers working.
func thinker(running *atomic.Int32) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "slow"}, nil)
	s.AddTool(&mcp.Tool{Name: "think", Description: "Think for a long time.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			running.Add(1)
			defer running.Add(-1)
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Minute):
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
			}
		})
	return s
}

// hangUpOn sends a 2026-07-28 tools/call of name with arguments to the
// edge at url, declaring elicitation, and hangs up once until() holds.
func hangUpOn(t *testing.T, url, name, arguments string, until func() bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + arguments + `,` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"` + StatelessRevision + `","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", StatelessRevision)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", name)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	waitFor(t, "the call under way", until)
	cancel()
	<-done
}

// TestHangingUpCancelsTheCall: a 2026-07-28 client's hang-up cancels its
// call's upstream request, in passthrough mode and through execute_tool,
// well within the call's timeout of a minute.
func TestHangingUpCancelsTheCall(t *testing.T) {
	for _, mode := range []string{ModePassthrough, ModeMeta} {
		t.Run(mode, func(t *testing.T) {
			var running atomic.Int32
			up := httpUpstream("slow", serveHTTP(t, thinker(&running)).URL)
			up.Timeout = Duration(time.Minute)
			tg := startGateway(t, Config{Mode: mode, Upstreams: []*UpstreamConfig{up}})
			url := serveEdge(t, tg, EdgeOptions{}).URL
			name, args := "slow_think", `{}`
			if mode == ModeMeta {
				name, args = ExecuteToolName, `{"tool_name":"slow.think"}`
			}
			hangUpOn(t, url, name, args, func() bool { return running.Load() == 1 })
			waitFor(t, "the upstream's request cancelled", func() bool { return running.Load() == 0 })
		})
	}
}

// TestHeldCallEndsWhenItsCallerHangsUpBeforeItsFirstRound: a call held on
// its caller's own upstream session whose caller hangs up before the
// first round ends (the upstream is still working) can never be resumed:
// no request state names it. It ends, and its upstream's request is
// cancelled, rather than running until its timeout.
func TestHeldCallEndsWhenItsCallerHangsUpBeforeItsFirstRound(t *testing.T) {
	var running atomic.Int32
	up := httpUpstream("slow", serveHTTP(t, thinker(&running)).URL)
	up.Session = SessionPerClient
	up.Timeout = Duration(time.Minute)
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{up}})
	hangUpOn(t, serveEdge(t, tg, EdgeOptions{}).URL, "slow_think", `{}`, func() bool { return tg.heldCount() == 1 && running.Load() == 1 })
	waitFor(t, "the held call ended and its upstream's request cancelled", func() bool { return tg.heldCount() == 0 && running.Load() == 0 })
}
