package gateway

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// slowServer has one tool, slow, that answers "done" after d.
func slowServer(d time.Duration) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "slow"}, nil)
	s.AddTool(&mcp.Tool{Name: "slow", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	return s
}

// TestReloadLetsALongToolCallFinish: a tool with a timeout of its own,
// longer than its upstream's, is called; meanwhile a reload changes the
// upstream's connection (a rotated token) and the old connection is
// closed, as the pool closes one no config uses. The call in flight
// finishes within its own timeout: closing the connection waits for it,
// not only for the upstream's timeout.
func TestReloadLetsALongToolCallFinish(t *testing.T) {
	url := serveHTTP(t, slowServer(1500*time.Millisecond)).URL
	config := func(token string) Config {
		u := httpUpstream("s", url)
		u.Timeout = Duration(500 * time.Millisecond)
		u.Headers = http.Header{"Authorization": {"Bearer " + token}}
		u.Tools = map[string]ToolOverride{"slow": {Timeout: Duration(10 * time.Second)}}
		return Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{u}}
	}
	tg := startGateway(t, config("old"))
	old := tg.Catalog().Domain("s").upstream

	done := callInBackground(tg.client, &mcp.CallToolParams{Name: "s_slow"})
	waitFor(t, "the call in flight", func() bool { return old.inflight.Load() == 1 })

	cfg := config("new")
	next := newConnection(t, cfg)
	if err := tg.Update(cfg, []*Upstream{next}, Options{}); err != nil {
		t.Fatal(err)
	}
	go old.Close() // as the pool does once no config uses it

	o := <-done
	switch {
	case o.err != nil:
		t.Fatalf("the call in flight across the reload failed: %v", o.err)
	case o.res.IsError || text(o.res) != "done":
		t.Fatalf("the call in flight across the reload = %q (isError %v), want done", text(o.res), o.res.IsError)
	}
}

// TestReloadKeepsACallsTimeout: a call in flight keeps the timeout it
// started with when a reload changes it: a tool's own timeout shortened
// (the connection stays) does not cut the call short, and an upstream's
// timeout lengthened (a new connection) does not give it longer, and its
// timeout error names the timeout that ended it.
func TestReloadKeepsACallsTimeout(t *testing.T) {
	url := serveHTTP(t, slowServer(1500*time.Millisecond)).URL
	config := func(upstream, tool time.Duration) Config {
		u := httpUpstream("s", url)
		u.Timeout = Duration(upstream)
		if tool > 0 {
			u.Tools = map[string]ToolOverride{"slow": {Timeout: Duration(tool)}}
		}
		return Config{Upstreams: []*UpstreamConfig{u}}
	}
	for _, c := range []struct {
		name          string
		before, after Config
		want          string // the call's text: done, or its timeout error
	}{
		{"tool timeout shortened", config(10*time.Second, 0), config(10*time.Second, 200*time.Millisecond), "done"},
		{"upstream timeout lengthened", config(700*time.Millisecond, 0), config(10*time.Second, 0), "did not answer within 700ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tg := startGateway(t, c.before)
			old := tg.Catalog().Domain("s").upstream
			done := callInBackground(tg.client, &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "s.slow", "arguments": map[string]any{}}})
			waitFor(t, "the call in flight", func() bool { return old.inflight.Load() == 1 })
			ups := tg.current().upstreams
			if c.after.Upstreams[0].Connection.Key() != c.before.Upstreams[0].Connection.Key() {
				ups = []*Upstream{newConnection(t, c.after)}
				defer func() { go old.Close() }()
			}
			if err := tg.Update(c.after, ups, Options{}); err != nil {
				t.Fatal(err)
			}
			o := <-done
			if o.err != nil {
				t.Fatalf("the call in flight across the reload failed: %v", o.err)
			}
			if got := text(o.res); !strings.Contains(got, c.want) {
				t.Errorf("the call in flight across the reload = %q, want %q", got, c.want)
			}
		})
	}
}
