package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// codeResourceNotFoundBefore2026 is the resource-not-found code of the
// revisions before 2026-07-28, which that revision retires.
const codeResourceNotFoundBefore2026 = -32002

// retiredCodeServer is an upstream whose resource file:///gone answers
// every read with the resource-not-found code of earlier revisions.
func retiredCodeServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "files"}, nil)
	s.AddResource(&mcp.Resource{URI: "file:///gone", Name: "gone"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, &jsonrpc.Error{Code: codeResourceNotFoundBefore2026, Message: "Resource not found"}
	})
	return s
}

// statelessRead reads uri as a 2026-07-28 client does and returns the HTTP
// status and the decoded answer.
func statelessRead(t *testing.T, url, uri string) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": map[string]any{"uri": uri,
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": StatelessRevision, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}}})
	status, resp := post(t, url, string(body), map[string]string{"Mcp-Protocol-Version": StatelessRevision, "Mcp-Method": "resources/read", "Mcp-Name": uri})
	return status, decodeAnswer(t, resp)
}

// The 2026-07-28 revision forbids -32002 (resource not found in earlier
// revisions; it is -32602 now): an upstream's -32002 reaches a client of
// that revision as -32602, with HTTP 400, and a client of an earlier
// revision as the upstream sent it.
func TestUpstreamsRetiredResourceNotFoundCode(t *testing.T) {
	up := httpUpstream("files", serveHTTP(t, retiredCodeServer()).URL)
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{up}})
	ts := serveEdge(t, tg, EdgeOptions{})

	status, answer := statelessRead(t, ts.URL, "file:///gone")
	e, _ := answer["error"].(map[string]any)
	if code, _ := e["code"].(float64); int64(code) != jsonrpc.CodeInvalidParams || status != http.StatusBadRequest {
		t.Errorf("a 2026-07-28 client read a missing resource: HTTP %d, error code %v; want 400 and %d", status, e["code"], jsonrpc.CodeInvalidParams)
	}

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "old"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: ts.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "file:///gone"})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != codeResourceNotFoundBefore2026 {
		t.Errorf("a 2025-11-25 client read a missing resource: %v; want the upstream's %d", err, codeResourceNotFoundBefore2026)
	}
}
