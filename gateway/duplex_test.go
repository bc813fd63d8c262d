package gateway

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// duplexServer's tools ask the client for its roots, and wait to be
// cancelled.
func duplexServer(cancelled chan<- struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "duplex"}, nil)
	s.AddTool(&mcp.Tool{Name: "roots", Description: "List the client's roots.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, err
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(uris, ",")}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "wait", Description: "Wait until cancelled.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-ctx.Done():
				cancelled <- struct{}{}
			case <-time.After(20 * time.Second):
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	return s
}

// connectClient connects a go-sdk client with roots to the gateway.
func connectClient(t *testing.T, g *Gateway, roots ...string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "with-roots"}, nil)
	for _, r := range roots {
		c.AddRoots(&mcp.Root{URI: r})
	}
	return connectIn(t, g.Server(), c)
}

func TestRootsRelayedToTheCallingClient(t *testing.T) {
	up := httpUpstream("duplex", serveHTTP(t, duplexServer(make(chan struct{}, 1))).URL)
	up.Session = SessionPerClient
	up.RelayRoots = true
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{up}})
	a := connectClient(t, tg.Gateway, "file:///home/a")
	b := connectClient(t, tg.Gateway, "file:///home/b", "file:///srv")
	for cs, want := range map[*mcp.ClientSession]string{a: "file:///home/a", b: "file:///home/b,file:///srv"} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "duplex.roots"}})
		if err != nil || res.IsError || text(res) != want {
			t.Errorf("roots through execute_tool = %v (%v), want %q", text(res), err, want)
		}
	}
}

// TestRootsKeptFromAnUpstreamWithoutRelayRoots: roots name folders on the
// upstream's host, so an upstream without relay_roots is told of none,
// its roots/list requests are refused, and the client is never asked,
// whether the upstream asks on a client's own session or on the shared
// one.
func TestRootsKeptFromAnUpstreamWithoutRelayRoots(t *testing.T) {
	for _, session := range []string{SessionPerClient, SessionShared} {
		t.Run(session, func(t *testing.T) {
			var declared *mcp.ClientCapabilities
			s := duplexServer(make(chan struct{}, 1))
			s.AddTool(&mcp.Tool{Name: "capabilities", Description: "The client's capabilities.", InputSchema: map[string]any{"type": "object"}},
				func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					declared = req.Session.InitializeParams().Capabilities
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
				})
			up := httpUpstream("duplex", serveHTTP(t, s).URL)
			up.Session = session
			tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{up}})
			c, asked := rootedClient()
			cs := connectIn(t, tg.Server(), c)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "duplex.roots"}})
			if err != nil || !strings.Contains(text(res), "relay_roots") || strings.Contains(text(res), "file:///") {
				t.Errorf("roots through execute_tool = %v (%v), want a refusal naming relay_roots", text(res), err)
			}
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "duplex.capabilities"}}); err != nil {
				t.Fatal(err)
			}
			if declared == nil || declared.RootsV2 != nil || declared.Roots.ListChanged {
				t.Errorf("the upstream was told the client capabilities %+v, want no roots", declared)
			}
			if n := asked.Load(); n != 0 {
				t.Errorf("the client was asked for its roots %d times, want never", n)
			}
		})
	}
}

func TestCancellationReachesTheUpstream(t *testing.T) {
	cancelled := make(chan struct{}, 1)
	for _, session := range []string{SessionShared, SessionPerClient} {
		t.Run(session, func(t *testing.T) {
			up := httpUpstream("duplex", serveHTTP(t, duplexServer(cancelled)).URL)
			up.Session = session
			tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{up}})
			cs := connectClient(t, tg.Gateway)
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				time.Sleep(200 * time.Millisecond)
				cancel()
			}()
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "duplex.wait"}})
			if err == nil {
				t.Fatal("a cancelled call succeeded")
			}
			select {
			case <-cancelled:
			case <-time.After(5 * time.Second):
				t.Fatal("the upstream tool was not cancelled")
			}
		})
	}
}

// TestDiscoveryDeclaresRootsOnlyWithRelayRoots: the connection the catalog
// is read from declares the roots capability for an upstream with
// relay_roots (whose tools for clients with roots then reach the
// catalog), and not otherwise.
func TestDiscoveryDeclaresRootsOnlyWithRelayRoots(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "caps"}, nil)
	s.AddTool(&mcp.Tool{Name: "capabilities", Description: "The client's capabilities.", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			roots := req.Session.InitializeParams().Capabilities.RootsV2 != nil
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(roots)}}}, nil
		})
	url := serveHTTP(t, s).URL
	for _, relay := range []bool{false, true} {
		u := NewUpstream(Connection{URL: url}, UpstreamOptions{Discovery: true, RelayRoots: relay})
		<-u.Started()
		res, err := u.CallTool(context.Background(), &mcp.CallToolParams{Name: "capabilities", Arguments: map[string]any{}}, nil)
		u.Close()
		if err != nil || text(res) != fmt.Sprint(relay) {
			t.Errorf("relay_roots %v: the upstream was told roots %v (%v)", relay, text(res), err)
		}
	}
}

// rootedClient is a go-sdk client whose root is file:///, the whole host,
// and the count of the roots/list requests it is asked.
func rootedClient() (*mcp.Client, *atomic.Int32) {
	return clientWithRoot("with-roots", "file:///", 0)
}

// clientWithRoot is a go-sdk client named name whose one root is uri, that
// answers roots/list after answerAfter, and the count of the roots/list
// requests it is asked.
func clientWithRoot(name, uri string, answerAfter time.Duration) (*mcp.Client, *atomic.Int32) {
	var asked atomic.Int32
	c := mcp.NewClient(&mcp.Implementation{Name: name}, nil)
	c.AddRoots(&mcp.Root{URI: uri})
	c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "roots/list" {
				asked.Add(1)
				time.Sleep(answerAfter)
			}
			return next(ctx, method, req)
		}
	})
	return c, &asked
}

// rootsAtStartServer asks its client for roots as its session starts, the
// way the filesystem server does, and its tool "roots" says what it got,
// after waiting for callTime.
func rootsAtStartServer(callTime time.Duration) *mcp.Server {
	var got atomic.Value
	got.Store("none yet")
	s := mcp.NewServer(&mcp.Implementation{Name: "roots-at-start"}, &mcp.ServerOptions{
		InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
			go func() {
				res, err := req.Session.ListRoots(context.Background(), nil)
				if err != nil {
					got.Store("error: " + err.Error())
					return
				}
				var uris []string
				for _, r := range res.Roots {
					uris = append(uris, r.URI)
				}
				got.Store(strings.Join(uris, ","))
			}()
		},
	})
	s.AddTool(&mcp.Tool{Name: "roots", Description: "The roots this server was given.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			time.Sleep(callTime)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: got.Load().(string)}}}, nil
		})
	return s
}

// TestRootsAskedAtSessionStartOutliveTheFirstCall: an upstream with
// relay_roots that asks for roots as its per-client session starts (which
// is during the client's first call) gets them even when the client
// answers after that call has ended: roots belong to the session, and are
// asked on the client's standalone stream. A client without that stream
// is asked on the stream of its call, if the question comes while the call
// lasts (here the upstream's tool takes 200 ms), and its late answer
// still counts.
func TestRootsAskedAtSessionStartOutliveTheFirstCall(t *testing.T) {
	for _, standalone := range []bool{true, false} {
		t.Run(fmt.Sprintf("standalone stream %v", standalone), func(t *testing.T) {
			callTime := time.Duration(0)
			if !standalone {
				callTime = 200 * time.Millisecond
			}
			up := httpUpstream("early", serveHTTP(t, rootsAtStartServer(callTime)).URL)
			up.Session = SessionPerClient
			up.RelayRoots = true
			tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{up}})
			ts := serveEdge(t, tg, EdgeOptions{})
			// The client answers after the first call has ended.
			c, asked := clientWithRoot("slow-roots", "file:///home/client", 600*time.Millisecond)
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL, DisableStandaloneSSE: !standalone},
				&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			var got string
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "early.roots"}})
				if err != nil {
					t.Fatal(err)
				}
				if got = text(res); got == "file:///home/client" {
					break
				}
			}
			if got != "file:///home/client" {
				t.Errorf("the upstream's roots = %q, want the client's file:///home/client (asked %d times)", got, asked.Load())
			}
		})
	}
}
