package gateway

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// backgroundCall is what a tool call made in the background came to.
type backgroundCall struct {
	res *mcp.CallToolResult
	err error
}

// callInBackground calls a tool on cs, within 20s, and delivers what the
// call came to.
func callInBackground(cs *mcp.ClientSession, params *mcp.CallToolParams) <-chan backgroundCall {
	done := make(chan backgroundCall, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, params)
		done <- backgroundCall{res, err}
	}()
	return done
}

// newConnection is the connection to cfg's first upstream that the pool
// makes for a reload changing its settings (a rotated token), closed when
// the test ends.
func newConnection(t *testing.T, cfg Config) *Upstream {
	u := NewUpstream(cfg.Upstreams[0].Connection, UpstreamOptions{Discovery: true})
	t.Cleanup(func() { u.Close() })
	return u
}

// reloadOntoNewConnection reloads tg onto cfg with a new connection to
// its upstream, closes old as the pool does once no config uses it, and
// returns the new connection once it is ready.
func reloadOntoNewConnection(t *testing.T, tg *testGateway, cfg Config, old *Upstream) *Upstream {
	t.Helper()
	next := newConnection(t, cfg)
	if err := tg.Update(cfg, []*Upstream{next}, Options{}); err != nil {
		t.Fatal(err)
	}
	old.Close()
	waitFor(t, "the new connection", func() bool { return next.Status().State == StateReady })
	return next
}

// heldAnswerClient connects a client to tg that answers an elicitation
// with the name Grace: asked is closed when it is asked, and it answers
// once the test closes answer.
func heldAnswerClient(t *testing.T, tg *testGateway) (cs *mcp.ClientSession, asked, answer chan struct{}) {
	asked, answer = make(chan struct{}), make(chan struct{})
	cs = connectIn(t, tg.Server(), mcp.NewClient(&mcp.Implementation{Name: "answering"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			close(asked)
			<-answer
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Grace"}}, nil
		},
	}))
	return cs, asked, answer
}
