package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOwnSessionsResourceUpdateReachesOnlyItsClient: with `session
// per_client`, each client has an upstream session of its own, and what
// that session's server sends is that client's: a change to the resource
// as client A's session sees it is told to A, not to client B, who
// subscribed to the same URI on its own session.
func TestOwnSessionsResourceUpdateReachesOnlyItsClient(t *testing.T) {
	var mu sync.Mutex
	var servers []*mcp.Server // one per upstream session, in the order they began
	newServer := func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "desk"}, &mcp.ServerOptions{
			SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
			UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		})
		s.AddResource(&mcp.Resource{URI: "desk://inbox", Name: "inbox"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "this session's inbox"}}}, nil
		})
		return s
	}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		mu.Lock()
		defer mu.Unlock()
		if r.Header.Get("Mcp-Session-Id") == "" || len(servers) == 0 {
			servers = append(servers, newServer())
		}
		return servers[len(servers)-1]
	}, nil))
	t.Cleanup(ts.Close)
	up := httpUpstream("desk", ts.URL)
	up.Session = SessionPerClient
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{up}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	connect := func(updates *atomic.Int32) *mcp.ClientSession {
		return connectIn(t, tg.ServerFor(0), mcp.NewClient(&mcp.Implementation{Name: "client"}, &mcp.ClientOptions{
			ResourceUpdatedHandler: func(context.Context, *mcp.ResourceUpdatedNotificationRequest) { updates.Add(1) },
		}))
	}
	var aGot, bGot atomic.Int32
	a := connect(&aGot)
	if err := a.Subscribe(ctx, &mcp.SubscribeParams{URI: "desk://inbox"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	aServer := servers[len(servers)-1] // A's own upstream session's server
	mu.Unlock()
	b := connect(&bGot)
	if err := b.Subscribe(ctx, &mcp.SubscribeParams{URI: "desk://inbox"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if servers[len(servers)-1] == aServer {
		mu.Unlock()
		t.Fatal("B's subscription did not get an upstream session of its own")
	}
	mu.Unlock()

	// A's session's inbox changed.
	if err := aServer.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "desk://inbox"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "client A told of its update", func() bool { return aGot.Load() > 0 })
	time.Sleep(300 * time.Millisecond)
	if n := bGot.Load(); n > 0 {
		t.Errorf("client B got %d resources/updated notification(s) that client A's own upstream session sent", n)
	}
}

// countingHandler is a slog.Handler that counts records and their bytes.
type countingHandler struct {
	records, bytes atomic.Int64
}

func (h *countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countingHandler) Handle(_ context.Context, r slog.Record) error {
	n := int64(len(r.Message))
	r.Attrs(func(a slog.Attr) bool { n += int64(len(a.Key) + len(a.Value.String())); return true })
	h.records.Add(1)
	h.bytes.Add(n)
	return nil
}
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countingHandler) WithGroup(string) slog.Handler      { return h }

// updateFloodUpstream is a real MCP server behind a front that answers a
// call to "flood" with an event stream of n notifications/resources/updated,
// each for a URI of size bytes that no client subscribed to, then the
// answer.
func updateFloodUpstream(t *testing.T, n, size int) *httptest.Server {
	return updateSendingUpstream(t, n, size, true)
}

// updateSendingUpstream is updateFloodUpstream, listing flood://watched
// as its own resource or not.
func updateSendingUpstream(t *testing.T, n, size int, listsWatched bool) *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "flooder"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	addTextTool(s, "flood", "Misbehave.", "never sent")
	if listsWatched {
		s.AddResource(&mcp.Resource{URI: "flood://watched", Name: "watched"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "flood://watched", Text: "watched"}}}, nil
		})
	}
	return frontedUpstream(t, s, func(w http.ResponseWriter, id json.RawMessage, tool string) bool {
		if tool != "flood" {
			return false
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		pad := strings.Repeat("x", size)
		for i := range n {
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":\"flood://%d/%s\"}}\n\n", i, pad)
		}
		// Last, one the client subscribed to: when it arrives, so have the others.
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":\"flood://watched\"}}\n\n")
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}\n\n", id)
		return true
	})
}

// TestUnsubscribedResourceUpdatesGoNowhere: an upstream's resource update
// for a URI no client subscribed to is not handed to the SDK, which would
// log each one at INFO, URI and all, to the logger the gateway gives it
// (Caddy's, in the module): 200 such updates with 64 KB URIs must not
// turn into 200 log lines per access rule, while the one update a client
// subscribed to reaches it.
func TestUnsubscribedResourceUpdatesGoNowhere(t *testing.T) {
	sdkLog := &countingHandler{}
	tg := startGatewayWith(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("flooder", updateFloodUpstream(t, 200, 64<<10).URL)}},
		Options{SDKLogger: slog.New(sdkLog), Access: []AccessRule{{}, {Deny: []string{"flooder.nothing"}}}})
	ctx := context.Background()
	cs, updates := updatesClient(t, tg, 0)
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "flood://watched"}); err != nil {
		t.Fatal(err)
	}
	before, beforeBytes := sdkLog.records.Load(), sdkLog.bytes.Load()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "flooder_flood", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if !gotUpdate(updates, "flood://watched", 10*time.Second) {
		t.Fatal("the subscribed update, sent after the flood, never arrived")
	}
	lines, size := sdkLog.records.Load()-before, sdkLog.bytes.Load()-beforeBytes
	if lines > 20 {
		t.Errorf("200 resources/updated notifications for URIs no client subscribed to wrote %d log lines, %d KB, to the gateway's log", lines, size>>10)
	}
}

// TestResourceUpdateComesFromTheURIsOwnUpstream: a client subscribed to
// a URI through the upstream that lists it hears of updates from that
// upstream only; another upstream announcing an update of the same URI
// reaches no one.
func TestResourceUpdateComesFromTheURIsOwnUpstream(t *testing.T) {
	owner := mcp.NewServer(&mcp.Implementation{Name: "owner"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	owner.AddResource(&mcp.Resource{URI: "flood://watched", Name: "watched"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "flood://watched", Text: "watched"}}}, nil
	})
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{
		httpUpstream("owner", serveHTTP(t, owner).URL),
		httpUpstream("other", updateSendingUpstream(t, 0, 0, false).URL),
	}})
	ctx := context.Background()
	cs, updates := updatesClient(t, tg, 0)
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "flood://watched"}); err != nil {
		t.Fatal(err)
	}
	// The other upstream announces the owner's resource changed (before
	// its answer, so it is handled before the call returns).
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "other_flood", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if err := owner.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "flood://watched"}); err != nil {
		t.Fatal(err)
	}
	if !gotUpdate(updates, "flood://watched", 10*time.Second) {
		t.Fatal("the owner's update never arrived")
	}
	if gotUpdate(updates, "flood://watched", 200*time.Millisecond) {
		t.Error("the subscriber was told of two updates, the other upstream's among them; want the owner's one")
	}
}

// updatesClient connects a 2025-11-25 client to the server of access
// rule i and returns it with the channel the URIs of the resources/updated
// notifications it receives arrive on.
func updatesClient(t *testing.T, tg *testGateway, i int) (*mcp.ClientSession, <-chan string) {
	t.Helper()
	updates := make(chan string, 16)
	c := mcp.NewClient(&mcp.Implementation{Name: "subscriber"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			select {
			case updates <- req.Params.URI:
			default:
			}
		},
	})
	return connectIn(t, tg.ServerFor(i), c), updates
}

// gotUpdate reports whether uri arrives on updates within d.
func gotUpdate(updates <-chan string, uri string, d time.Duration) bool {
	deadline := time.After(d)
	for {
		select {
		case got := <-updates:
			if got == uri {
				return true
			}
		case <-deadline:
			return false
		}
	}
}

// TestUnsubscribeUnderOnePolicyKeepsAnothersSubscription: two clients
// under different access rules (both allowed the resource) subscribe to
// the same URI on the shared upstream session; when one unsubscribes, the
// other, still subscribed, still hears of updates: the upstream session
// stays subscribed until the last client anywhere leaves.
func TestUnsubscribeUnderOnePolicyKeepsAnothersSubscription(t *testing.T) {
	var unsubscribed atomic.Int32
	s := mcp.NewServer(&mcp.Implementation{Name: "live"}, &mcp.ServerOptions{
		SubscribeHandler: func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error {
			unsubscribed.Add(1)
			return nil
		},
	})
	s.AddResource(&mcp.Resource{URI: "live://status", Name: "status"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "ok"}}}, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	tg := startGatewayWith(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("live", ts.URL)}},
		Options{Access: []AccessRule{{Allow: []string{"*"}}, {Allow: []string{"live.*"}}}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	admin, _ := updatesClient(t, tg, 0)
	user, userUpdates := updatesClient(t, tg, 1)
	for _, cs := range []*mcp.ClientSession{admin, user} {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "live://status"}); err != nil {
			t.Fatal(err)
		}
	}
	// Both subscribed: the user's client gets the update.
	if err := s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "live://status"}); err != nil {
		t.Fatal(err)
	}
	if !gotUpdate(userUpdates, "live://status", 5*time.Second) {
		t.Fatal("control: the subscribed client got no update while both were subscribed")
	}

	// The client under the other rule leaves; this one is still subscribed.
	if err := admin.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "live://status"}); err != nil {
		t.Fatal(err)
	}
	if err := s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "live://status"}); err != nil {
		t.Fatal(err)
	}
	if !gotUpdate(userUpdates, "live://status", 3*time.Second) {
		t.Errorf("a client still subscribed to live://status got no update after a client under another access rule unsubscribed "+
			"(the shared upstream session was unsubscribed %d times while a client was still subscribed)", unsubscribed.Load())
	}
}

// TestRevokedResourceStopsUpdating: a client subscribed to a
// resource its policy showed; a reload changes the policy to hide it (the
// client can no longer read it, and it reads as one that does not exist).
// The client no longer receives the hidden resource's updates (see also
// TestReloadHidingASubscribedResourceUnsubscribesTheUpstream).
func TestRevokedResourceStopsUpdating(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "live"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	for _, uri := range []string{"live://secret", "live://public"} {
		s.AddResource(&mcp.Resource{URI: uri, Name: strings.TrimPrefix(uri, "live://")}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "content"}}}, nil
		})
	}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	cfg := Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("live", ts.URL)}}
	tg := startGatewayWith(t, cfg, Options{Access: []AccessRule{{Allow: []string{"*"}}}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, updates := updatesClient(t, tg, 0)
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "live://secret"}); err != nil {
		t.Fatal(err)
	}
	if err := s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "live://secret"}); err != nil {
		t.Fatal(err)
	}
	if !gotUpdate(updates, "live://secret", 5*time.Second) {
		t.Fatal("control: no update while the resource was shown")
	}

	// The operator revokes it.
	ups := []*Upstream{tg.Catalog().Domain("live").upstream}
	if err := tg.Update(cfg, ups, Options{Access: []AccessRule{{Allow: []string{"*"}, Deny: []string{"live.resource:live://secret"}}}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the reload to hide live://secret", func() bool {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "live://secret"})
		return err != nil && strings.Contains(err.Error(), "not found")
	})
	if err := s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "live://secret"}); err != nil {
		t.Fatal(err)
	}
	if gotUpdate(updates, "live://secret", 2*time.Second) {
		t.Error("the client received resources/updated for live://secret, which its access rule now hides (reading it answers 'resource not found')")
	}
}
