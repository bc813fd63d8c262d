package gateway

import (
	"context"
	"fmt"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestListChangedStormWithNothingChangedRebuildsNothing: an upstream that
// sends notifications/tools/list_changed over and over (about 100 a
// second, the go-sdk's own debounce; a raw server can send more) while its
// list stays exactly the same gets a re-list about once a second, and
// lists that read the same as before rebuild nothing (a rebuild is every
// view's catalog and search index, vetting, pins: tens of milliseconds of
// the gateway's CPU per access rule). A real change still reaches the
// catalog.
func TestListChangedStormWithNothingChangedRebuildsNothing(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "stormy"}, nil)
	tool := func(i int) *mcp.Tool {
		return &mcp.Tool{
			Name:        fmt.Sprintf("tool_%04d_do_something", i),
			Description: fmt.Sprintf("Does thing number %d with the widgets of the account. Returns the widgets it changed.", i),
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{
				"account": map[string]any{"type": "string", "description": "The account whose widgets change."},
			}},
		}
	}
	handler := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	for i := range 2000 {
		s.AddTool(tool(i), handler)
	}
	var lists atomic.Int32
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.ListToolsParams); ok && p.Cursor == "" {
				lists.Add(1) // a re-list's first page
			}
			return next(ctx, method, req)
		}
	})
	// Two access rules: each has a view, with a catalog of its own.
	tg := startGatewayWith(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("stormy", serveHTTP(t, s).URL)}},
		Options{Access: []AccessRule{{}, {Deny: []string{"stormy.tool_0000_*"}}}})
	if n := len(tg.Catalog().Tools); n != 2000 {
		t.Fatalf("%d tools in the catalog, want 2000", n)
	}
	time.Sleep(200 * time.Millisecond) // let the startup rebuilds settle

	// Count the catalog snapshots the storm makes.
	stop := make(chan struct{})
	counted := make(chan int)
	go func() {
		last, n := tg.Catalog(), 0
		for {
			select {
			case <-stop:
				counted <- n
				return
			default:
			}
			if c := tg.Catalog(); c != last {
				last, n = c, n+1
			}
			time.Sleep(200 * time.Microsecond)
		}
	}()
	before := cpuTime()
	lists.Store(0)
	storm := time.Now().Add(2 * time.Second)
	notes := 0
	for time.Now().Before(storm) {
		s.AddTool(tool(7), handler) // the same definition again: list_changed, nothing changed
		notes++
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	close(stop)
	rebuilds := <-counted
	cpu := cpuTime() - before
	if rebuilds > 5 {
		t.Errorf("%d list_changed notifications in 2s, with the upstream's list unchanged, made %d catalog rebuilds (process CPU %s over 2.3s)", notes, rebuilds, cpu.Round(time.Millisecond))
	}
	// Re-lists themselves come at most once a second.
	if n := lists.Load(); n > 3 {
		t.Errorf("%d list_changed notifications in 2s made %d re-lists in 2.3s, want at most 3", notes, n)
	}

	// A change that does happen still reaches the catalog.
	changed := tool(7)
	changed.Description = "Does thing number 7, now differently."
	s.AddTool(changed, handler)
	waitFor(t, "the changed tool in the catalog", func() bool {
		c, err := tg.Catalog().Lookup("stormy.tool_0007_do_something")
		return err == nil && c.Description == changed.Description
	})
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
