package gateway

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// floodingProgressServer has two tools that report progress: chatty sends many
// large progress notifications before answering (a long export that says
// what it did), step sends one.
func floodingProgressServer(sent chan<- struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "jobs"}, nil)
	schema := map[string]any{"type": "object"}
	s.AddTool(&mcp.Tool{Name: "chatty", Description: "Export everything, reporting each batch.", InputSchema: schema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			line := strings.Repeat("exported row; ", 600) // ~8 KB
			for i := range 2000 {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: 2000, Message: line}); err != nil {
					break
				}
			}
			select {
			case sent <- struct{}{}:
			default:
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "exported"}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "step", Description: "One step, reported.", InputSchema: schema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: 1, Total: 1, Message: "step done"})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "stepped"}}}, nil
		})
	return s
}

// TestStalledClientDoesNotStopOthersProgress: on a shared upstream
// session (the default), the upstream's notifications are handled one at
// a time, in order. One client that calls a tool reporting progress and
// then stops reading its response stream (a small receive window, never
// read) must not hold up that handler once the socket buffers are full:
// another client's progress from the same upstream still arrives. (The
// gateway queues each client's notifications, see notificationqueue.go.)
func TestStalledClientDoesNotStopOthersProgress(t *testing.T) {
	sent := make(chan struct{}, 1)
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("jobs", serveHTTP(t, floodingProgressServer(sent)).URL)}})
	ts := serveEdge(t, tg, EdgeOptions{})

	// The stalled client: a stateless tools/call with a progress token,
	// over a connection with a tiny receive buffer whose answer it never
	// reads.
	dialer := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) }); err != nil {
			return err
		}
		return serr
	}}
	stalled := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_tool","arguments":{"tool_name":"jobs.chatty"},"_meta":{"progressToken":"mine","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", StatelessRevision)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", ExecuteToolName)
	resp, err := stalled.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() }) // never read
	select {
	case <-sent:
	case <-time.After(20 * time.Second):
		t.Fatal("the upstream did not finish sending its progress")
	}
	time.Sleep(300 * time.Millisecond)

	// Another client, on its own session, calls a tool of the same
	// upstream with a progress token of its own.
	var got atomic.Int32
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := tg.Server().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	other, err := mcp.NewClient(&mcp.Implementation{Name: "other"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { got.Add(1) },
	}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	params := &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "jobs.step"}}
	params.SetProgressToken("theirs")
	began := time.Now()
	res, err := other.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("the other client's call failed: %v %v", res, err)
	}
	took := time.Since(began)
	waitUntil := time.Now().Add(2 * time.Second)
	for got.Load() == 0 && time.Now().Before(waitUntil) {
		time.Sleep(20 * time.Millisecond)
	}
	if got.Load() == 0 {
		t.Errorf("a client that stopped reading its stream stopped another client's progress: the other's call answered %q in %s, its progress notification never came", text(res), took.Round(time.Millisecond))
	}
	if took >= settleMax {
		t.Errorf("the other client's call took %s: it waited out settle, for notifications held up by the stalled client", took.Round(time.Millisecond))
	}
}

// TestStalledClientsNotificationsAreBounded: notifications to a client
// whose stream does not take them are queued, never waited for: another
// client's go out meanwhile, the stalled client's queue stays within its
// bound, and once its stream moves again what was kept goes out in order,
// each call's latest progress included.
func TestStalledClientsNotificationsAreBounded(t *testing.T) {
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "gw"}, nil)
	session := func() *mcp.ServerSession {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, ct, nil); err != nil {
			t.Fatal(err)
		}
		return ss
	}
	stalled, reading := session(), session()
	unstall := make(chan struct{})
	var mu sync.Mutex
	written := map[*mcp.ServerSession][]*mcp.ProgressNotificationParams{}
	var q notificationQueues
	send := q.queue(func(_ context.Context, _ string, req mcp.Request) (mcp.Result, error) {
		ss := req.GetSession().(*mcp.ServerSession)
		if ss == stalled {
			<-unstall
		}
		mu.Lock()
		defer mu.Unlock()
		written[ss] = append(written[ss], req.GetParams().(*mcp.ProgressNotificationParams))
		return nil, nil
	})
	progress := func(ss *mcp.ServerSession, token string, i int) {
		_, _ = send(ctx, "notifications/progress", &mcp.ServerRequest[*mcp.ProgressNotificationParams]{Session: ss, Params: &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i)}})
	}
	writtenTo := func(ss *mcp.ServerSession) []*mcp.ProgressNotificationParams {
		mu.Lock()
		defer mu.Unlock()
		return written[ss]
	}

	began := time.Now()
	for i := range 1000 {
		progress(stalled, "a", i)
		progress(stalled, "b", i)
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("queuing 2000 notifications for a stalled client took %s", took)
	}
	q.mu.Lock()
	queued := len(q.bySession[stalled])
	q.mu.Unlock()
	if queued > maxQueuedNotifications {
		t.Errorf("%d notifications queued for a stalled client, want at most %d", queued, maxQueuedNotifications)
	}

	for i := range 10 {
		progress(reading, "c", i)
	}
	q.waitWritten(ctx, reading)
	if got := writtenTo(reading); len(got) != 10 || got[9].Progress != 9 {
		t.Errorf("with another client stalled, a reading client got %d progress notifications, want 10", len(got))
	}

	close(unstall)
	q.waitWritten(ctx, stalled)
	last := map[any]float64{"a": -1, "b": -1}
	for _, p := range writtenTo(stalled) {
		if p.Progress <= last[p.ProgressToken] {
			t.Errorf("call %v's progress went from %v to %v", p.ProgressToken, last[p.ProgressToken], p.Progress)
		}
		last[p.ProgressToken] = p.Progress
	}
	if last["a"] != 999 || last["b"] != 999 {
		t.Errorf("the stalled client, reading again, got last progress %v; want each call's latest (999)", last)
	}
}
