package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// listenRequest is a 2026-07-28 subscriptions/listen request to url for
// tool list changes, living as long as ctx.
func listenRequest(t *testing.T, ctx context.Context, url string) *http.Request {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"` + StatelessRevision + `","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", StatelessRevision)
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	return req
}

// The 2026-07-28 revision asks a server that opens an event stream to say
// X-Accel-Buffering: no, so that a reverse proxy in front (nginx) passes
// each event on as it comes instead of holding it in a buffer; a plain JSON
// answer does not say it.
func TestEventStreamsAskProxiesNotToBuffer(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("echo", serveHTTP(t, echoServer()).URL)}})
	ts := serveEdge(t, tg, EdgeOptions{})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := listenRequest(t, ctx, ts.URL)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("a listen stream answered as %q", ct)
	}
	if v := resp.Header.Get("X-Accel-Buffering"); v != "no" {
		t.Errorf("an event stream's X-Accel-Buffering is %q, want no", v)
	}

	answer, _ := postHeader(t, ts.URL, statelessCall(2, DiscoverToolsName), http.Header{
		"Mcp-Protocol-Version": {StatelessRevision}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {DiscoverToolsName}})
	if ct := answer.Header.Get("Content-Type"); ct == "application/json" && answer.Header.Get("X-Accel-Buffering") != "" {
		t.Errorf("a JSON answer says X-Accel-Buffering")
	}
}

// unwrapOnlyWriter is a ResponseWriter that flushes only through its
// Unwrap, as Caddy's does: http.ResponseController reaches the flusher
// underneath, a type assertion to http.Flusher does not.
type unwrapOnlyWriter struct{ w http.ResponseWriter }

func (u unwrapOnlyWriter) Header() http.Header         { return u.w.Header() }
func (u unwrapOnlyWriter) Write(b []byte) (int, error) { return u.w.Write(b) }
func (u unwrapOnlyWriter) WriteHeader(code int)        { u.w.WriteHeader(code) }
func (u unwrapOnlyWriter) Unwrap() http.ResponseWriter { return u.w }

// TestEventStreamsFlushBehindAnUnwrappingWriter: behind a writer that
// flushes only through its Unwrap (Caddy's), an event stream's headers go
// out as soon as the SDK flushes them: a listen stream answers at once,
// rather than when its first event comes (here: never).
func TestEventStreamsFlushBehindAnUnwrappingWriter(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("echo", serveHTTP(t, echoServer()).URL)}})
	e, err := tg.NewEdge(EdgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { e.ServeHTTP(unwrapOnlyWriter{w}, r) }))
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := listenRequest(t, ctx, ts.URL)
	client := &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: 5 * time.Second}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("a listen stream behind an unwrapping writer: %v", err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Errorf("a listen stream answered as %q", ct)
	}
}
