package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/search"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// manyToolsServer lists n tools with descriptions of about 300 bytes.
func manyToolsServer(n int) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "many"}, nil)
	desc := strings.Repeat("The quick brown fox jumps over the lazy dog and reads files. ", 5)
	for i := range n {
		addTextTool(s, fmt.Sprintf("tool_%d", i), desc, "ok")
	}
	return s
}

// TestRegexQueryWorkIsBounded: a short regex with counted repeats
// (/(?:.?.?…){1000}z/, 109 bytes) compiles to a program of about 96,000
// instructions, 20ms a description: over 200 tools it held a CPU for
// seconds after its client had gone. Such a regex is refused, saying why;
// an ordinary one still answers.
func TestRegexQueryWorkIsBounded(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("m", serveHTTP(t, manyToolsServer(200)).URL)}})
	tg.viewsMu.RLock()
	v := tg.views[0]
	tg.viewsMu.RUnlock()
	discover := func(query string) (string, time.Duration) {
		args, _ := json.Marshal(map[string]any{"query": query})
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		start := time.Now()
		res, err := v.discoverTools(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: DiscoverToolsName, Arguments: args}})
		if err != nil {
			t.Fatal(err)
		}
		return text(res), time.Since(start)
	}
	query := "/(?:" + strings.Repeat(".?", 48) + "){1000}z/"
	answer, took := discover(query)
	if took > time.Second || !strings.Contains(answer, "too costly") {
		t.Errorf("discover_tools %q took %v and answered %s; want a refusal saying the regex is too costly", query, took, clip(answer))
	}
	if answer, _ := discover("/tool_1[0-9]$/"); !strings.Contains(answer, `"total":10`) {
		t.Errorf("an ordinary regex answered %s, want its 10 tools", clip(answer))
	}
}

// TestRegexToolsStopsWithItsRequest: a regex query whose request has
// ended stops, and says how far it got.
func TestRegexToolsStopsWithItsRequest(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("m", serveHTTP(t, manyToolsServer(200)).URL)}})
	q, err := search.ParseQuery("/fox/")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	resp := regexTools(ctx, tg.Catalog(), "/fox/", q, toolScope{})
	if len(resp.Results) != 0 || !strings.Contains(resp.Note, "stopped after 0 of 200 tools") {
		t.Errorf("a regex query whose request ended answered %d results, note %q", len(resp.Results), resp.Note)
	}
}
