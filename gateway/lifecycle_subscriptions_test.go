package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// restartableLive is an upstream with one subscribable resource,
// live://status, that can restart behind the same address (a new server:
// no sessions, no subscriptions).
type restartableLive struct {
	sh         swappableHandler
	server     atomic.Pointer[mcp.Server]
	subscribed atomic.Int32 // subscriptions the current server holds
}

func newRestartableLive(t *testing.T) (*restartableLive, *httptest.Server) {
	l := &restartableLive{}
	l.restart()
	ts := httptest.NewServer(&l.sh)
	t.Cleanup(ts.Close)
	return l, ts
}

// restart replaces the server with a new one, which knows no session.
func (l *restartableLive) restart() {
	l.subscribed.Store(0)
	s := mcp.NewServer(&mcp.Implementation{Name: "live"}, &mcp.ServerOptions{
		SubscribeHandler: func(context.Context, *mcp.SubscribeRequest) error {
			l.subscribed.Add(1)
			return nil
		},
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error {
			l.subscribed.Add(-1)
			return nil
		},
	})
	s.AddResource(&mcp.Resource{URI: "live://status", Name: "status"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "ok"}}}, nil
	})
	l.server.Store(s)
	l.sh.set(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
}

// update has the current server announce a change of live://status.
func (l *restartableLive) update(t *testing.T) {
	t.Helper()
	if err := l.server.Load().ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: "live://status"}); err != nil {
		t.Fatal(err)
	}
}

// TestSubscriptionsOutliveAnUpstreamRestart: a client subscribed to a
// resource through a domain's shared upstream session; the upstream
// restarts (it forgets the session and its subscriptions) and the gateway
// reconnects. The new session is subscribed to what clients are still
// subscribed to, so the client goes on hearing of updates.
func TestSubscriptionsOutliveAnUpstreamRestart(t *testing.T) {
	live, ts := newRestartableLive(t)
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("live", ts.URL)}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, updates := updatesClient(t, tg, 0)
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "live://status"}); err != nil {
		t.Fatal(err)
	}
	live.update(t)
	if !gotUpdate(updates, "live://status", 5*time.Second) {
		t.Fatal("control: no update before the restart")
	}
	u := tg.Catalog().Domain("live").upstream
	connects := u.connects.Load()

	live.restart()
	// A read finds the session forgotten: the gateway makes a new one.
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "live://status"}); err != nil {
		t.Fatalf("reading after the upstream restarted: %v", err)
	}
	waitFor(t, "a new upstream session", func() bool { return u.connects.Load() > connects })
	waitFor(t, "the new upstream session subscribed", func() bool { return live.subscribed.Load() == 1 })
	live.update(t)
	if !gotUpdate(updates, "live://status", 5*time.Second) {
		t.Error("a client still subscribed to live://status heard of no update after its upstream restarted")
	}
}
