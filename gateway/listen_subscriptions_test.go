package gateway

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// openListen opens a 2026-07-28 subscriptions/listen stream on the edge at
// url for uris, waits for its acknowledgement, and returns the function
// that ends it (the client going away, as the SDK's client does).
func openListen(t *testing.T, url string, uris ...string) (end func()) {
	t.Helper()
	quoted := make([]string, len(uris))
	for i, u := range uris {
		quoted[i] = fmt.Sprintf("%q", u)
	}
	end, status, answer := listen(t, url, `{"resourceSubscriptions":[`+strings.Join(quoted, ",")+`]}`, nil)
	if end == nil {
		t.Fatalf("listen on %v: no acknowledgement: %d %s", uris, status, answer)
	}
	return end
}

// listen asks the edge at url for a subscriptions/listen stream of
// notifications (a JSON object), with header's extra headers. Acknowledged,
// it returns the function that ends the stream; refused, nil with the
// response's status and body.
func listen(t *testing.T, url, notifications string, header http.Header) (end func(), status int, answer string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":` + notifications +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"` + StatelessRevision + `","io.modelcontextprotocol/clientCapabilities":{}}}}`
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", StatelessRevision)
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	var read strings.Builder
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if strings.Contains(lines.Text(), "subscriptions/acknowledged") {
			return func() { cancel(); resp.Body.Close() }, resp.StatusCode, ""
		}
		read.WriteString(lines.Text())
		if strings.Contains(lines.Text(), `"error"`) {
			break
		}
	}
	cancel()
	resp.Body.Close()
	return nil, resp.StatusCode, read.String()
}

// TestListenStreamsLeaveNoSubscriptionsBehind: a 2026-07-28 client's
// subscriptions/listen stream subscribes the shared upstream session to
// the resources it names; when the stream ends, the last one out releases
// the upstream's subscription and the gateway forgets the count, so that a
// client opening and dropping streams over URI after URI of a template
// leaves nothing behind (upstream subscriptions, counts in memory).
func TestListenStreamsLeaveNoSubscriptionsBehind(t *testing.T) {
	var mu sync.Mutex
	upstreamSubs := map[string]int{}
	s := mcp.NewServer(&mcp.Implementation{Name: "live"}, &mcp.ServerOptions{
		SubscribeHandler: func(_ context.Context, req *mcp.SubscribeRequest) error {
			mu.Lock()
			defer mu.Unlock()
			upstreamSubs[req.Params.URI]++
			return nil
		},
		UnsubscribeHandler: func(_ context.Context, req *mcp.UnsubscribeRequest) error {
			mu.Lock()
			defer mu.Unlock()
			if upstreamSubs[req.Params.URI]--; upstreamSubs[req.Params.URI] == 0 {
				delete(upstreamSubs, req.Params.URI)
			}
			return nil
		},
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "live://item/{id}", Name: "item"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "item"}}}, nil
		})
	uts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(uts.Close)
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("live", uts.URL)}})
	ts := serveEdge(t, tg, EdgeOptions{})
	tg.viewsMu.RLock()
	v := tg.views[0]
	tg.viewsMu.RUnlock()
	counts := func() int {
		v.exposed.subsMu.Lock()
		defer v.exposed.subsMu.Unlock()
		return len(v.exposed.subs)
	}

	for i := range 5 {
		end := openListen(t, ts.URL, fmt.Sprintf("live://item/%d", i))
		mu.Lock()
		n := upstreamSubs[fmt.Sprintf("live://item/%d", i)]
		mu.Unlock()
		if n != 1 {
			t.Fatalf("while a listen stream names live://item/%d, the upstream has %d subscriptions to it, want 1", i, n)
		}
		end()
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		left := len(upstreamSubs)
		mu.Unlock()
		if left == 0 && counts() == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Errorf("after every listen stream ended: upstream subscriptions %v, %d counts kept by the gateway; want none", upstreamSubs, counts())
}
