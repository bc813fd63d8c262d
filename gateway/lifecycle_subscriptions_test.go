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

// TestSubscriptionsMoveToTheReloadedUpstream: a reload changes a
// domain's connection (a rotated token, say), so the domain gets a new
// upstream connection and the old one is closed. A client subscribed
// through the old connection stays subscribed through the new one: the
// new one is subscribed, the old one unsubscribed, and the client hears
// of updates.
func TestSubscriptionsMoveToTheReloadedUpstream(t *testing.T) {
	live, ts := newRestartableLive(t)
	before := httpUpstream("live", ts.URL)
	before.Headers = http.Header{"Authorization": {"Bearer old"}}
	cfg := Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{before}}
	tg := startGateway(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, updates := updatesClient(t, tg, 0)
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "live://status"}); err != nil {
		t.Fatal(err)
	}
	old := tg.Catalog().Domain("live").upstream

	after := httpUpstream("live", ts.URL)
	after.Headers = http.Header{"Authorization": {"Bearer new"}}
	next := NewUpstream(after.Connection, UpstreamOptions{Discovery: true})
	t.Cleanup(func() { next.Close() })
	if err := tg.Update(Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{after}}, []*Upstream{next}, Options{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the reloaded catalog", func() bool {
		d := tg.Catalog().Domain("live")
		return d != nil && d.upstream == next && d.State == StateReady
	})
	waitFor(t, "the subscription moved to the new connection", func() bool {
		return next.subscribers.count("live://status") == 1 && old.subscribers.count("live://status") == 0
	})
	if n := live.subscribed.Load(); n != 1 {
		t.Errorf("the upstream holds %d subscriptions to live://status after the reload, want 1 (the new connection's)", n)
	}
	old.Close() // as the pool does once no config uses it
	live.update(t)
	if !gotUpdate(updates, "live://status", 5*time.Second) {
		t.Error("a client subscribed to live://status heard of no update after a reload changed its upstream's connection")
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "live://status"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the upstream's subscription released", func() bool { return live.subscribed.Load() == 0 })
}

// TestReloadHidingASubscribedResourceUnsubscribesTheUpstream: a reload
// hides a resource clients are subscribed to. Nobody may hear of it any
// more, so the shared upstream session is unsubscribed from it, and the
// clients' subscriptions are over: their leaving later changes nothing,
// and one that subscribes again once a later reload shows the resource
// again is subscribed afresh.
func TestReloadHidingASubscribedResourceUnsubscribesTheUpstream(t *testing.T) {
	live, ts := newRestartableLive(t)
	cfg := Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("live", ts.URL)}}
	shown := Options{Access: []AccessRule{{Allow: []string{"*"}}}}
	tg := startGatewayWith(t, cfg, shown)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, updates := updatesClient(t, tg, 0)
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "live://status"}); err != nil {
		t.Fatal(err)
	}
	u := tg.Catalog().Domain("live").upstream
	ups := []*Upstream{u}
	if err := tg.Update(cfg, ups, Options{Access: []AccessRule{{Allow: []string{"*"}, Deny: []string{"live.resource:live://status"}}}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the upstream unsubscribed from the hidden resource", func() bool {
		return live.subscribed.Load() == 0 && u.subscribers.count("live://status") == 0
	})
	_, counts := subscriptionCounts(tg)
	if n := counts(); n != 0 {
		t.Errorf("the view still counts subscribers of %d URIs it hides", n)
	}

	// Shown again: the client's old subscription is over; it subscribes again.
	if err := tg.Update(cfg, ups, shown); err != nil {
		t.Fatal(err)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "live://status"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the upstream subscribed again", func() bool { return live.subscribed.Load() == 1 })
	live.update(t)
	if !gotUpdate(updates, "live://status", 5*time.Second) {
		t.Error("a client that subscribed again to a resource shown again heard of no update")
	}
	cs.Close()
	waitFor(t, "the upstream's subscription released with the client", func() bool {
		return live.subscribed.Load() == 0 && u.subscribers.count("live://status") == 0
	})
}

// TestUnsubscribingWhileTheUpstreamIsDownLeavesNothingBehind: a client
// unsubscribes while its upstream is down, so the upstream cannot be told.
// The client is counted out all the same (and told it is unsubscribed):
// when the upstream comes back, its new session is not subscribed on
// behalf of nobody, and the counts are forgotten.
func TestUnsubscribingWhileTheUpstreamIsDownLeavesNothingBehind(t *testing.T) {
	live, ts := newRestartableLive(t)
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("live", ts.URL)}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs := connectView(t, tg, 0, "2025-11-25")
	defer cs.Close()
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "live://status"}); err != nil {
		t.Fatal(err)
	}
	u := tg.Catalog().Domain("live").upstream
	connects := u.connects.Load()
	live.sh.set(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	}))
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "live://status"}); err != nil {
		t.Errorf("unsubscribing while the upstream is down: %v; the client is unsubscribed all the same", err)
	}
	live.restart()
	waitFor(t, "the upstream back", func() bool {
		return u.connects.Load() > connects && u.Status().State == StateReady
	})
	if n := live.subscribed.Load(); n != 0 {
		t.Errorf("the upstream's new session was subscribed %d times to live://status, to which no client is subscribed", n)
	}
	_, counts := subscriptionCounts(tg)
	if n, on := counts(), u.subscribers.count("live://status"); n != 0 || on != 0 {
		t.Errorf("after the only client unsubscribed, the view counts subscribers of %d URIs and the connection %d subscribers of live://status", n, on)
	}
}
