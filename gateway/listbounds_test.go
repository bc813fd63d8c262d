package gateway

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// heapAfterGC is the live heap, in bytes, after a full collection.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// bigItemsServer lists, one per page, n tools or n resources whose
// descriptions are size bytes each (every page well under
// MaxUpstreamMessage).
func bigItemsServer(n, size int, resources bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "big"}, &mcp.ServerOptions{PageSize: 1})
	for i := range n {
		desc := strings.Repeat(string(rune('a'+i%26)), size)
		if resources {
			s.AddResource(&mcp.Resource{Name: fmt.Sprintf("r%d", i), URI: fmt.Sprintf("big://r/%d", i), Description: desc},
				func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { return nil, nil })
		} else {
			addTextTool(s, fmt.Sprintf("t%d", i), desc, "ok")
		}
	}
	return s
}

// TestOversizedToolsAreNotKept: a tool over max_tool_size is left out and
// not kept in memory past its name: an upstream listing 40 tools of 1 MiB
// each (one per page) under max_tool_size 64 KiB costs the gateway no 40
// MiB, and the operator is told of each.
func TestOversizedToolsAreNotKept(t *testing.T) {
	const n, size = 40, 1 << 20
	url := serveHTTP(t, bigItemsServer(n, size, false)).URL
	before := heapAfterGC()
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("big", url)}})
	if k := len(tg.Catalog().Tools); k != 0 {
		t.Fatalf("%d tools in the catalog, want none: all are over max_tool_size", k)
	}
	after := heapAfterGC()
	kept := 0
	for _, def := range tg.Gateway.current().upstreams[0].Status().Tools {
		kept += len(def.Description)
	}
	grew := int64(after) - int64(before)
	t.Logf("catalog: 0 tools; upstream status keeps %d tools, %d bytes of descriptions; live heap grew %d bytes", len(tg.Gateway.current().upstreams[0].Status().Tools), kept, grew)
	if kept > 0 || grew > 8<<20 {
		t.Errorf("the gateway keeps %d MiB of tool definitions over max_tool_size (%d KiB) that no catalog holds (heap +%d MiB)", kept>>20, DefaultMaxToolSize>>10, grew>>20)
	}
	notices := 0
	for _, r := range tg.Gateway.Upstreams() {
		for _, n := range r.Notices {
			if strings.Contains(n, "left out: its definition is") && strings.Contains(n, "over max_tool_size") {
				notices++
			}
		}
	}
	if notices != n {
		t.Errorf("%d notices of tools left out for their size, want %d", notices, n)
	}
	runtime.KeepAlive(tg)
}

// TestOversizedResourcesAreNotKept: resources (and templates and prompts)
// over max_tool_size are left out too: an upstream listing 40 resources
// with 1 MiB descriptions, one per page, neither holds 40 MiB of the
// gateway's memory nor makes every passthrough client's resources/list
// fail on its size.
func TestOversizedResourcesAreNotKept(t *testing.T) {
	const n, size = 40, 1 << 20
	url := serveHTTP(t, bigItemsServer(n, size, true)).URL
	before := heapAfterGC()
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("big", url)}})
	after := heapAfterGC()
	st := tg.Gateway.current().upstreams[0].Status()
	kept := 0
	for _, r := range st.Resources {
		kept += len(r.Description)
	}
	grew := int64(after) - int64(before)
	t.Logf("upstream status keeps %d resources, %d bytes of descriptions; live heap grew %d bytes", len(st.Resources), kept, grew)
	if grew > 16<<20 {
		t.Errorf("one upstream's resource list holds %d MiB of the gateway's memory, more than one upstream message (%d MiB)", grew>>20, MaxUpstreamMessage>>20)
	}
	found := false
	for _, r := range tg.Gateway.Upstreams() {
		for _, n := range r.Notices {
			found = found || strings.Contains(n, "40 resources, resource templates or prompts left out")
		}
	}
	if !found {
		t.Error("the operator is not told the resources were left out")
	}
	// What the gateway makes of it for a client: one resources/list
	// answer with every description, over the go-sdk's 16 MiB frame limit.
	if _, err := tg.client.ListResources(context.Background(), nil); err != nil {
		t.Errorf("a passthrough client's resources/list fails: %v", err)
	}
	runtime.KeepAlive(tg)
}

// TestListBytesAreBounded: a list whose items, each under the item limit
// (or with none), come to more than maxListBytes is refused.
func TestListBytesAreBounded(t *testing.T) {
	desc := strings.Repeat("x", 1<<20)
	pages := 0
	read := func(_ context.Context, cursor string) ([]*mcp.Resource, string, error) {
		pages++
		return []*mcp.Resource{{URI: fmt.Sprintf("big://%d", pages), Description: desc}}, fmt.Sprint(pages), nil
	}
	_, _, err := listAll(context.Background(), read, listBounds[mcp.Resource]{})
	if err == nil || !strings.Contains(err.Error(), "MiB of items") || pages > maxListBytes>>20+1 {
		t.Errorf("a list of %d MiB: %v", pages, err)
	}
}
