package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestListenRelaysChangesToStatelessClients: a 2026-07-28 client's
// subscriptions/listen hears, through the gateway in passthrough mode, of
// an upstream's tool list changing and of a subscribed resource's update,
// the upstream also speaking 2026-07-28.
func TestListenRelaysChangesToStatelessClients(t *testing.T) {
	up := mcp.NewServer(&mcp.Implementation{Name: "live"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	addTextTool(up, "first", "The first tool.", "1")
	up.AddResource(&mcp.Resource{URI: "live://status", Name: "status"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "ok"}}}, nil
	})
	uts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(uts.Close)
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("live", uts.URL)}})
	ts := serveEdge(t, tg, EdgeOptions{})

	toolsChanged := make(chan struct{}, 10)
	updated := make(chan string, 10)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "listener"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { toolsChanged <- struct{}{} },
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
	}).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != StatelessRevision {
		t.Fatalf("the client speaks %s", v)
	}
	if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "live://status"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the listen streams open

	addTextTool(up, "second", "The second tool.", "2")
	select {
	case <-toolsChanged:
	case <-time.After(10 * time.Second):
		t.Fatal("no tools/list_changed reached the client's listen stream")
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 2 {
		t.Errorf("after the change the client lists %v (%v)", tools, err)
	}

	if err := up.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: "live://status"}); err != nil {
		t.Fatal(err)
	}
	select {
	case uri := <-updated:
		if uri != "live://status" {
			t.Errorf("update for %q", uri)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no resources/updated reached the client's listen stream")
	}
}
