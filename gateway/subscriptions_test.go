package gateway

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSubscriptionCountsAreForgotten: the shared session's count of the
// clients subscribed to a URI is forgotten when the last one leaves, so a
// client subscribing to and leaving URI after URI of a template leaves
// nothing behind; a client that subscribes twice counts once; and a
// client whose session ends is counted out of what it had not left, the
// upstream's subscription released with the last one.
func TestSubscriptionCountsAreForgotten(t *testing.T) {
	live, url := liveItemsUpstream(t)
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("live", url)}})
	cs := connectView(t, tg, 0, "2025-11-25")
	defer cs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := range 100 {
		uri := fmt.Sprintf("live://item/%d", i)
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("subscribing to %s: %v", uri, err)
		}
		if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
			t.Fatalf("unsubscribing from %s: %v", uri, err)
		}
	}
	v, counts := subscriptionCounts(tg)
	if left := counts(); left != 0 {
		t.Errorf("%d subscription counts left after every client left every URI", left)
	}

	// A client that subscribes twice, then ends its session.
	other := connectView(t, tg, 0, "2025-11-25")
	for range 2 {
		for _, uri := range []string{"live://item/a", "live://item/b"} {
			if err := other.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "live://item/a"}); err != nil {
		t.Fatal(err)
	}
	v.exposed.subsMu.Lock()
	a := v.exposed.subs["live\x00live://item/a"]
	v.exposed.subsMu.Unlock()
	if a != 2 {
		t.Errorf("two clients subscribed to live://item/a (one of them twice) count as %d", a)
	}
	other.Close()
	waitFor(t, "the ended session's subscriptions released", func() bool {
		return live.held()["live://item/b"] == 0 && counts() == 1
	})
	if n := live.held()["live://item/a"]; n != 1 {
		t.Errorf("the upstream's subscription to live://item/a is %d, want 1: the other client is still subscribed", n)
	}
}

// liveItems counts the subscriptions an upstream with a template of
// items (live://item/{id}) holds to each URI.
type liveItems struct {
	mu   sync.Mutex
	subs map[string]int
}

// liveItemsUpstream serves such an upstream over streamable HTTP and
// returns its counts and its URL.
func liveItemsUpstream(t *testing.T) (*liveItems, string) {
	live := &liveItems{subs: map[string]int{}}
	s := mcp.NewServer(&mcp.Implementation{Name: "live"}, &mcp.ServerOptions{
		SubscribeHandler: func(_ context.Context, req *mcp.SubscribeRequest) error {
			live.count(req.Params.URI, +1)
			return nil
		},
		UnsubscribeHandler: func(_ context.Context, req *mcp.UnsubscribeRequest) error {
			live.count(req.Params.URI, -1)
			return nil
		},
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "live://item/{id}", Name: "item"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "item"}}}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	return live, ts.URL
}

func (l *liveItems) count(uri string, delta int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.subs[uri] += delta; l.subs[uri] == 0 {
		delete(l.subs, uri)
	}
}

// held is a copy of the subscriptions the upstream holds, by URI.
func (l *liveItems) held() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.subs)
}

// subscriptionCounts returns the gateway's first view and a function
// that reads how many URIs it counts subscribers of.
func subscriptionCounts(tg *testGateway) (*view, func() int) {
	tg.viewsMu.RLock()
	v := tg.views[0]
	tg.viewsMu.RUnlock()
	return v, func() int {
		v.exposed.subsMu.Lock()
		defer v.exposed.subsMu.Unlock()
		return len(v.exposed.subs)
	}
}

// TestFailedSubscriptionIsNotCountedOut: a client whose subscription the
// upstream refused was never counted in, so its leaving does not count
// out another client's.
func TestFailedSubscriptionIsNotCountedOut(t *testing.T) {
	var mu sync.Mutex
	calls, subscribed := 0, 0
	s := mcp.NewServer(&mcp.Implementation{Name: "live"}, &mcp.ServerOptions{
		SubscribeHandler: func(context.Context, *mcp.SubscribeRequest) error {
			mu.Lock()
			defer mu.Unlock()
			if calls++; calls == 1 {
				return fmt.Errorf("not now")
			}
			subscribed++
			return nil
		},
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error {
			mu.Lock()
			defer mu.Unlock()
			subscribed--
			return nil
		},
	})
	s.AddResource(&mcp.Resource{URI: "live://status", Name: "status"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "ok"}}}, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("live", ts.URL)}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	refused := connectView(t, tg, 0, "2025-11-25")
	if err := refused.Subscribe(ctx, &mcp.SubscribeParams{URI: "live://status"}); err == nil {
		t.Fatal("the upstream's refusal did not reach the client")
	}
	kept := connectView(t, tg, 0, "2025-11-25")
	defer kept.Close()
	if err := kept.Subscribe(ctx, &mcp.SubscribeParams{URI: "live://status"}); err != nil {
		t.Fatal(err)
	}
	refused.Close()
	waitFor(t, "the ended session dropped", func() bool {
		tg.clients.mu.Lock()
		defer tg.clients.mu.Unlock()
		return len(tg.clients.byClient) == 1
	})
	mu.Lock()
	defer mu.Unlock()
	if subscribed != 1 {
		t.Errorf("the upstream's subscription is %d after the refused client left, want 1: the other client is still subscribed", subscribed)
	}
}
