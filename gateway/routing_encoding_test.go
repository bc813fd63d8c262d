package gateway

import (
	"encoding/base64"
	"net/http"
	"testing"
)

// The 2026-07-28 revision lets a client carry Mcp-Name Base64-encoded
// (=?base64?...?=), and requires a server to decode it before comparing it
// with the body: a name so encoded that matches is served, one that does
// not match, or does not decode, is refused with HeaderMismatch.
func TestEdgeDecodesABase64MCPName(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("echo", serveHTTP(t, echoServer()).URL)}})
	ts := serveEdge(t, tg, EdgeOptions{})
	encode := func(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }
	for _, tc := range []struct {
		name, header string
		wantStatus   int
	}{
		{"encoded, matches", encode(DiscoverToolsName), http.StatusOK},
		{"encoded, differs", encode(ExecuteToolName), http.StatusBadRequest},
		{"encoded badly", "=?base64?not base64!?=", http.StatusBadRequest},
	} {
		status, body := post(t, ts.URL, statelessCall(1, DiscoverToolsName), map[string]string{
			"Mcp-Protocol-Version": StatelessRevision, "Mcp-Method": "tools/call", "Mcp-Name": tc.header})
		answer := decodeAnswer(t, body)
		if status != tc.wantStatus {
			t.Errorf("%s: HTTP %d, want %d (answer has error: %v)", tc.name, status, tc.wantStatus, answer["error"] != nil)
			continue
		}
		if tc.wantStatus == http.StatusOK && answer["result"] == nil {
			t.Errorf("%s: no result", tc.name)
		}
		if tc.wantStatus != http.StatusOK {
			e, _ := answer["error"].(map[string]any)
			if code, _ := e["code"].(float64); int64(code) != CodeHeaderMismatch {
				t.Errorf("%s: error code %v, want %d", tc.name, e["code"], CodeHeaderMismatch)
			}
		}
	}
}
