package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
)

// rpcAnswer is a JSON-RPC response as it came over HTTP.
type rpcAnswer struct {
	Status int // the HTTP status
	Result json.RawMessage
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
}

// meta2026 is the _meta of a 2026-07-28 request from a client with caps.
func meta2026(caps map[string]any) map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    testenv.Revision2026,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "e2e-raw-client", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
}

// post2026 sends one 2026-07-28 request (params get the _meta of a client
// with caps; the routing headers repeat the body) with extra headers, and
// returns its answer, read from a JSON body or an event stream.
func post2026(t *testing.T, url string, headers map[string]string, method, name string, params map[string]any, caps map[string]any) rpcAnswer {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = meta2026(caps)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	h := map[string]string{"Mcp-Protocol-Version": testenv.Revision2026, "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	for k, v := range headers {
		h[k] = v
	}
	return postRPC(t, url, h, body)
}

// postRPC posts a JSON-RPC body with headers and reads the answer with ID
// 7 (or any, for an error the edge answers without reading the ID).
func postRPC(t *testing.T, url string, headers map[string]string, body []byte) rpcAnswer {
	t.Helper()
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	a := rpcAnswer{Status: resp.StatusCode}
	var messages [][]byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				messages = append(messages, []byte(strings.TrimSpace(data)))
			}
		}
	} else {
		b, _ := io.ReadAll(resp.Body)
		messages = append(messages, b)
	}
	for _, m := range messages {
		var msg struct {
			ID     any             `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(m, &msg) != nil || msg.Method != "" {
			continue
		}
		a.Result = msg.Result
		if len(msg.Error) > 0 {
			if err := json.Unmarshal(msg.Error, &a.Error); err != nil {
				t.Fatalf("decoding the error %s: %v", msg.Error, err)
			}
		}
		return a
	}
	return a
}

// tool decodes the answer's result as a tools/call result.
func (a rpcAnswer) tool(t *testing.T) toolResult {
	t.Helper()
	var r toolResult
	if a.Error != nil || json.Unmarshal(a.Result, &r) != nil {
		t.Fatalf("want a tools/call result, got HTTP %d, error %+v, result %s", a.Status, a.Error, a.Result)
	}
	return r
}
