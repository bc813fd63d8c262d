package gateway

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
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
	live, url := liveItemsUpstream(t)
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("live", url)}})
	ts := serveEdge(t, tg, EdgeOptions{})
	_, counts := subscriptionCounts(tg)

	for i := range 5 {
		end := openListen(t, ts.URL, fmt.Sprintf("live://item/%d", i))
		if n := live.held()[fmt.Sprintf("live://item/%d", i)]; n != 1 {
			t.Fatalf("while a listen stream names live://item/%d, the upstream has %d subscriptions to it, want 1", i, n)
		}
		end()
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if len(live.held()) == 0 && counts() == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("after every listen stream ended: upstream subscriptions %v, %d counts kept by the gateway; want none", live.held(), counts())
}
