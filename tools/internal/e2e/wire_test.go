package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
)

// statelessRevision is the protocol revision without sessions: each
// request states its revision and client in its _meta and repeats its
// method (and name) in routing headers.
const statelessRevision = "2026-07-28"

// wireClient speaks MCP in plain HTTP requests, as someone probing the
// gateway would: in an earlier revision (testenv.SessionRevision) with a
// session (initialize, then requests carrying Mcp-Session-Id), or in
// statelessRevision (server/discover, then requests with _meta and the
// routing headers).
type wireClient struct {
	t            *testing.T
	url          string
	headers      map[string]string // sent with every request (credentials)
	revision     string
	session      string // Mcp-Session-Id, in an earlier revision
	instructions string // from initialize or server/discover
	nextID       int
}

// wireAnswer is the answer to one JSON-RPC request.
type wireAnswer struct {
	Status int
	Result json.RawMessage
	Error  *wireError
	Body   string // the response body as it came
}

type wireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// connectWire opens a wireClient in revision: an initialize handshake
// (then notifications/initialized) in an earlier revision, server/discover
// in the stateless one. Either way it keeps the server's instructions.
func connectWire(t *testing.T, url string, headers map[string]string, revision string) *wireClient {
	t.Helper()
	c := &wireClient{t: t, url: url, headers: headers, revision: revision}
	if revision >= statelessRevision {
		a := c.request("server/discover", map[string]any{})
		if a.Error != nil || a.Status != http.StatusOK {
			t.Fatalf("server/discover: %d %s", a.Status, a.Body)
		}
		c.instructions = instructionsOf(t, a.Result)
		return c
	}
	a, h := c.send("initialize", map[string]any{
		"protocolVersion": revision,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "wire-probe", "version": "1"},
	}, nil)
	if a.Error != nil || a.Status != http.StatusOK || h.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize: %d %s", a.Status, a.Body)
	}
	c.session = h.Get("Mcp-Session-Id")
	c.instructions = instructionsOf(t, a.Result)
	if status := c.notify("notifications/initialized"); status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d", status)
	}
	return c
}

func instructionsOf(t *testing.T, result json.RawMessage) string {
	t.Helper()
	var r struct{ Instructions string }
	if err := json.Unmarshal(result, &r); err != nil {
		t.Fatalf("decoding %s: %v", result, err)
	}
	return r.Instructions
}

// request sends one request and returns its answer.
func (c *wireClient) request(method string, params map[string]any) wireAnswer {
	c.t.Helper()
	a, _ := c.send(method, params, nil)
	return a
}

// requestWith is request with extra headers (which replace the client's).
func (c *wireClient) requestWith(method string, params map[string]any, extra map[string]string) wireAnswer {
	c.t.Helper()
	a, _ := c.send(method, params, extra)
	return a
}

// notify sends a notification and returns the HTTP status.
func (c *wireClient) notify(method string) int {
	c.t.Helper()
	resp := c.post(map[string]any{"jsonrpc": "2.0", "method": method}, method, nil, nil)
	resp.Body.Close()
	return resp.StatusCode
}

func (c *wireClient) send(method string, params map[string]any, extra map[string]string) (wireAnswer, http.Header) {
	c.t.Helper()
	c.nextID++
	id := c.nextID
	if params == nil {
		params = map[string]any{}
	}
	resp := c.post(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}, method, params, extra)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s: reading the answer: %v", method, err)
	}
	// An error may come with a status other than 200 (the stateless
	// revision answers an invalid request with 400 and its JSON-RPC error).
	a := wireAnswer{Status: resp.StatusCode, Body: string(body)}
	for _, msg := range wireMessages(resp.Header.Get("Content-Type"), body) {
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *wireError      `json:"error"`
		}
		if json.Unmarshal(msg, &m) == nil && m.ID != nil && *m.ID == id {
			a.Result, a.Error = m.Result, m.Error
			return a, resp.Header
		}
	}
	if resp.StatusCode == http.StatusOK {
		c.t.Fatalf("%s: no answer with id %d in %q", method, id, body)
	}
	return a, resp.Header
}

// post sends one JSON-RPC message, with the headers its revision needs.
func (c *wireClient) post(msg map[string]any, method string, params map[string]any, extra map[string]string) *http.Response {
	c.t.Helper()
	if c.revision >= statelessRevision && params != nil {
		params["_meta"] = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    c.revision,
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "wire-probe", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		}
	}
	b, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	if c.revision >= statelessRevision {
		req.Header.Set("Mcp-Protocol-Version", c.revision)
		req.Header.Set("Mcp-Method", method)
		switch method {
		case "tools/call", "prompts/get":
			req.Header.Set("Mcp-Name", fmt.Sprint(params["name"]))
		case "resources/read":
			req.Header.Set("Mcp-Name", fmt.Sprint(params["uri"]))
		}
	} else if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", c.revision)
	}
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	return resp
}

// wireMessages are the JSON-RPC messages of a response body: one JSON
// message, or the data of each event of an event stream.
func wireMessages(contentType string, body []byte) [][]byte {
	if !strings.HasPrefix(contentType, "text/event-stream") {
		return [][]byte{body}
	}
	var out [][]byte
	var data []byte
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")...)
		case line == "" && len(data) > 0:
			out = append(out, data)
			data = nil
		}
	}
	if len(data) > 0 {
		out = append(out, data)
	}
	return out
}

// toolText is the text of a tools/call result's first content, and
// whether the result is an error.
func (a wireAnswer) toolText(t *testing.T) (string, bool) {
	t.Helper()
	if a.Error != nil || a.Status != http.StatusOK {
		t.Fatalf("tools/call: %d %s", a.Status, a.Body)
	}
	var r struct {
		Content []struct{ Text string }
		IsError bool
	}
	if err := json.Unmarshal(a.Result, &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("tools/call result %s: %v", a.Result, err)
	}
	return r.Content[0].Text, r.IsError
}

// wireRevisions are the two eras every access check runs in.
var wireRevisions = []string{testenv.SessionRevision, statelessRevision}
