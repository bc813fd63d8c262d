package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestSessionIDPrefix(t *testing.T) {
	tg := startGatewayWith(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("rich", serveHTTP(t, richServer()).URL)}},
		Options{SessionIDPrefix: "gw-b."})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return tg.Server() }, nil))
	t.Cleanup(ts.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if id := cs.ID(); !strings.HasPrefix(id, "gw-b.") || len(id) < len("gw-b.")+20 {
		t.Errorf("session ID %q, want gw-b. and 128 random bits", id)
	}
	for _, bad := range []string{"has space", "tab\t", "é", strings.Repeat("x", 65)} {
		if err := ValidSessionIDPrefix(bad); err == nil {
			t.Errorf("prefix %q accepted", bad)
		}
	}
}
