package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestTruncateResultKeepsWhatFitsAndSaysWhatWasCut(t *testing.T) {
	big := strings.Repeat("héllo wörld ", 20000) // ~260 KB, multi-byte runes
	res := &mcp.CallToolResult{
		Content: []mcp.Content{
			&mcp.TextContent{Text: "header"},
			&mcp.TextContent{Text: big},
			&mcp.ImageContent{Data: []byte("png"), MIMEType: "image/png"},
		},
		StructuredContent: map[string]any{"rows": big},
		Meta:              mcp.Meta{"upstream": "kept"},
	}
	original := jsonSize(res)
	const limit = 64 << 10
	if !truncateResult(res, "db.query", limit) {
		t.Fatal("a result over the limit was not truncated")
	}
	if size := jsonSize(res); size > limit {
		t.Errorf("truncated result is %d bytes, over the %d limit", size, limit)
	}
	if len(res.Content) != 3 || res.Content[0].(*mcp.TextContent).Text != "header" {
		t.Fatalf("content = %d blocks, want header, the cut text and the note", len(res.Content))
	}
	cut := res.Content[1].(*mcp.TextContent).Text
	if !utf8.ValidString(cut) || !strings.HasPrefix(big, strings.TrimSuffix(cut, "…")) || len(cut) < limit/2 {
		t.Errorf("cut text is %d bytes, valid UTF-8 %v", len(cut), utf8.ValidString(cut))
	}
	note := res.Content[2].(*mcp.TextContent).Text
	for _, want := range []string{"'db.query'", "over this gateway's limit of 65536", "1 content block(s) left out", "structuredContent left out", "Ask the tool for less"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	if res.StructuredContent != nil || res.Meta["upstream"] != "kept" || res.Meta[TruncatedMetaKey] != original {
		t.Errorf("structured = %v, meta = %v", res.StructuredContent != nil, res.Meta)
	}

	small := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}}}
	if truncateResult(small, "x", limit) || truncateResult(res, "x", 0) {
		t.Error("a result within the limit, or with no limit, was changed")
	}
}

func TestTruncateResultOfEscapeHeavyText(t *testing.T) {
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("\"\n<", 50000)}}}
	const limit = 16 << 10
	truncateResult(res, "x", limit)
	if size := jsonSize(res); size > limit {
		t.Errorf("truncated result is %d bytes, over the %d limit", size, limit)
	}
}

func TestExecuteToolResultOverTheLimitIsCut(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "big"}, nil)
	addTextTool(s, "dump", "Dump everything.", strings.Repeat("x", 300_000))
	tg := startGateway(t, Config{MaxResultSize: 100_000, Upstreams: []*UpstreamConfig{httpUpstream("big", serveHTTP(t, s).URL)}})
	res := tg.call(t, ExecuteToolName, map[string]any{"tool_name": "big.dump"})
	b, _ := json.Marshal(res)
	if res.IsError || len(b) > 100_000+200 || !strings.Contains(string(b), "was cut short") {
		t.Errorf("result: error %v, %d bytes, note present %v", res.IsError, len(b), strings.Contains(string(b), "was cut short"))
	}
	if res.Meta[TruncatedMetaKey] == nil {
		t.Errorf("meta = %v, want the truncation marked", res.Meta)
	}
}

func TestMaxConcurrentCallsQueuesThenSaysBusy(t *testing.T) {
	release := make(chan struct{})
	running := make(chan struct{}, 10)
	s := mcp.NewServer(&mcp.Implementation{Name: "narrow"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Take a while."}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		running <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	addTextTool(s, "quick", "Answer at once.", "quick")
	up := httpUpstream("narrow", serveHTTP(t, s).URL)
	up.MaxConcurrentCalls = 2
	up.Tools = map[string]ToolOverride{"quick": {Timeout: Duration(time.Second)}}
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{up}})
	call := map[string]any{"tool_name": "narrow.slow"}

	results := make(chan string, 2)
	for range 2 {
		go func() { results <- text(tg.call(t, ExecuteToolName, call)) }()
	}
	<-running
	<-running
	start := time.Now()
	msg := callError(t, tg, ExecuteToolName, map[string]any{"tool_name": "narrow.quick"}, ErrBusy)
	if !strings.Contains(msg, "already runs 2 calls, its limit") || time.Since(start) < 900*time.Millisecond {
		t.Errorf("third call: %q after %s", msg, time.Since(start))
	}
	close(release)
	for range 2 {
		if got := <-results; got != "done" {
			t.Errorf("a call within the limit = %q", got)
		}
	}
	if got := text(tg.call(t, ExecuteToolName, call)); got != "done" {
		t.Errorf("a call once slots are free = %q", got)
	}
}
