package gateway

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestRoutingHeadersAreCheckedAgainstWhatTheSDKReads: a body can carry
// keys that differ from the protocol's only in case ("Name", "Method")
// or repeat a key; the routing headers must agree with what the SDK will
// act on, which reads keys exactly and takes a repeated key's last value,
// so that no header can name one tool while the call runs another.
func TestRoutingHeadersAreCheckedAgainstWhatTheSDKReads(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("echo", serveHTTP(t, echoServer()).URL)}})
	ts := serveEdge(t, tg, EdgeOptions{})
	v := StatelessRevision
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + v + `","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, tc := range []struct {
		name, body, method, tool string
	}{
		{"a Name key beside name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_tool","Name":"discover_tools","arguments":{"tool_name":"echo.echo"},` + meta + `}}`, "tools/call", "discover_tools"},
		{"a Method key beside method", `{"jsonrpc":"2.0","id":2,"method":"tools/call","Method":"tools/list","params":{"name":"execute_tool","arguments":{"tool_name":"echo.echo"},` + meta + `}}`, "tools/list", "execute_tool"},
		{"a Params key beside params", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute_tool","arguments":{"tool_name":"echo.echo"},` + meta + `},"Params":{"name":"discover_tools"}}`, "tools/call", "discover_tools"},
	} {
		status, body := post(t, ts.URL, tc.body, map[string]string{"Mcp-Protocol-Version": v, "Mcp-Method": tc.method, "Mcp-Name": tc.tool})
		if status != http.StatusBadRequest || !strings.Contains(body, "does not match") {
			t.Errorf("%s, with headers naming %s %s: %d %s; want 400, the headers do not match the body", tc.name, tc.method, tc.tool, status, body)
		}
	}

	// An earlier revision needs no routing headers, but those it sends
	// must agree with what the SDK reads too (served without sessions
	// here, so that one request is a whole call).
	old := serveEdge(t, tg, EdgeOptions{Stateless: true})
	for _, tc := range []struct {
		name, body, method, tool string
	}{
		{"a Name key beside name", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"execute_tool","Name":"discover_tools","arguments":{"tool_name":"echo.echo"}}}`, "tools/call", "discover_tools"},
		{"a Method key beside method", `{"jsonrpc":"2.0","id":5,"method":"tools/call","Method":"tools/list","params":{"name":"execute_tool","arguments":{"tool_name":"echo.echo"}}}`, "tools/list", ""},
		{"name given twice", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"discover_tools","name":"execute_tool","arguments":{"tool_name":"echo.echo"}}}`, "tools/call", "discover_tools"},
	} {
		headers := map[string]string{"Mcp-Protocol-Version": "2025-11-25", "Mcp-Method": tc.method}
		if tc.tool != "" {
			headers["Mcp-Name"] = tc.tool
		}
		status, body := post(t, old.URL, tc.body, headers)
		if status != http.StatusBadRequest || !strings.Contains(body, "does not match") {
			t.Errorf("earlier revision, %s, with headers naming %s %s: %d %s; want 400, the headers do not match the body", tc.name, tc.method, tc.tool, status, body)
		}
	}

	// Batches (2025-03-26): one whose requests agree is described by the
	// headers as one request is; one whose requests differ cannot be.
	call := func(id int, tool string) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"tool_name":"echo.echo"}}}`
	}
	v0326 := map[string]string{"Mcp-Protocol-Version": "2025-03-26"}
	with := func(h map[string]string, k, v string) map[string]string {
		out := map[string]string{k: v}
		for a, b := range h {
			out[a] = b
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		body    string
		headers map[string]string
		refused string
	}{
		{"a batch of calls, said to be tools/list", "[" + call(7, "execute_tool") + "," + call(8, "execute_tool") + "]", with(v0326, "Mcp-Method", "tools/list"), "does not match"},
		{"a batch of calls of two tools", "[" + call(9, "discover_tools") + "," + call(10, "execute_tool") + "]", v0326, "batch"},
		{"a batch of a list and a call", `[{"jsonrpc":"2.0","id":11,"method":"tools/list"},` + call(12, "execute_tool") + "]", v0326, "batch"},
		{"a batch hiding a call behind Name", "[" + call(13, "discover_tools") + `,{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"execute_tool","Name":"discover_tools","arguments":{"tool_name":"echo.echo"}}}]`, with(v0326, "Mcp-Name", "discover_tools"), "batch"},
	} {
		status, body := post(t, old.URL, tc.body, tc.headers)
		if status != http.StatusBadRequest || !strings.Contains(body, tc.refused) {
			t.Errorf("%s: %d %s; want 400 (%s)", tc.name, status, body, tc.refused)
		}
	}
	status, body := post(t, old.URL, "["+call(15, "execute_tool")+","+call(16, "execute_tool")+"]", with(v0326, "Mcp-Method", "tools/call"))
	if status != http.StatusOK || strings.Count(body, `"echoed"`) != 2 {
		t.Errorf("a batch of two calls of one tool, said to be tools/call: %d %s; want both answered", status, body)
	}
}

// FuzzReadMessage: the edge's reading of a body never panics, and where
// the SDK's own decoder reads a request from the same body, the edge
// reads the same method: headers are checked against what will run.
func FuzzReadMessage(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","Name":"b"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","Method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"x","method":"resources/read","params":{"uri":"file:///a","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"a","method":"b","params":{},"params":{"name":"c"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		m := readMessage(body)
		msg, err := jsonrpc.DecodeMessage(body)
		if err != nil || !m.read {
			return
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.Method != m.method {
			t.Errorf("the edge reads method %q, the SDK %q, in %s", m.method, req.Method, body)
		}
	})
}

// TestRoutingHeaderGivenTwiceIsRefused: a routing header given twice could
// agree with the body by its first value and name something else by its
// others (Caddy's matchers match any value, its placeholders join them).
func TestRoutingHeaderGivenTwiceIsRefused(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("echo", serveHTTP(t, echoServer()).URL)}})
	ts := serveEdge(t, tg, EdgeOptions{Stateless: true})
	for _, tc := range []struct {
		name, body, header string
		values             []string
	}{
		{"Mcp-Name, 2026-07-28", statelessCall(1, ExecuteToolName), "Mcp-Name", []string{ExecuteToolName, "other"}},
		{"Mcp-Method, 2026-07-28", statelessCall(2, ExecuteToolName), "Mcp-Method", []string{"tools/call", "tools/list"}},
		{"Mcp-Name, earlier revision", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute_tool","arguments":{"tool_name":"echo.echo"}}}`, "Mcp-Name", []string{ExecuteToolName, ExecuteToolName}},
	} {
		h := http.Header{}
		if strings.Contains(tc.name, "2026") {
			h.Set("Mcp-Protocol-Version", StatelessRevision)
			h.Set("Mcp-Method", "tools/call")
			h.Set("Mcp-Name", ExecuteToolName)
		}
		h[tc.header] = tc.values
		resp, b := postHeader(t, ts.URL, tc.body, h)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(b, "given 2 times") {
			t.Errorf("%s given twice: %d %s; want 400", tc.name, resp.StatusCode, b)
		}
	}
}

// TestRoutingHeadersHoldWhateverElseParamsCarry: a params field the method
// does not have (a "uri" of the wrong type in a tools/call, a "name" in a
// resources/read) is ignored by the SDK, which reads only the method's own
// fields; it must not stop the edge from reading the name Mcp-Name mirrors,
// or a false Mcp-Name would reach the access matchers (Identify) and run.
func TestRoutingHeadersHoldWhateverElseParamsCarry(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("echo", serveHTTP(t, echoServer()).URL)}})
	var seen []string
	identify := func(r *http.Request) (Caller, error) {
		seen = append(seen, r.Header.Get("Mcp-Name"))
		return Caller{}, nil
	}
	ts := serveEdge(t, tg, EdgeOptions{Stateless: true, Identify: identify})
	meta := `,"_meta":{"io.modelcontextprotocol/protocolVersion":"` + StatelessRevision + `","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, tc := range []struct {
		name, version, method, params, header string
	}{
		{"tools/call with a numeric uri, 2026-07-28", StatelessRevision, "tools/call", `{"name":"execute_tool","uri":1,"arguments":{"tool_name":"echo.echo"}` + meta + `}`, DiscoverToolsName},
		{"tools/call with a numeric uri, earlier revision", "2025-11-25", "tools/call", `{"name":"execute_tool","uri":1,"arguments":{"tool_name":"echo.echo"}}`, DiscoverToolsName},
		{"tools/call with an object uri, earlier revision", "2025-11-25", "tools/call", `{"name":"execute_tool","uri":{},"arguments":{"tool_name":"echo.echo"}}`, DiscoverToolsName},
		{"resources/read with a numeric name, earlier revision", "2025-11-25", "resources/read", `{"uri":"echo://secret","name":1}`, "echo://public"},
		{"prompts/get with a list uri, earlier revision", "2025-11-25", "prompts/get", `{"name":"secret","uri":[]}`, "public"},
	} {
		seen = nil
		body := `{"jsonrpc":"2.0","id":1,"method":"` + tc.method + `","params":` + tc.params + `}`
		status, answer := post(t, ts.URL, body, map[string]string{"Mcp-Protocol-Version": tc.version, "Mcp-Method": tc.method, "Mcp-Name": tc.header})
		if status != http.StatusBadRequest || !strings.Contains(answer, "does not match") {
			t.Errorf("%s, Mcp-Name %q: %d %s; want 400, the header does not match the body", tc.name, tc.header, status, answer)
		}
		if len(seen) > 0 {
			t.Errorf("%s: the access matchers saw Mcp-Name %q, which the body does not name", tc.name, seen)
		}
	}
}

// TestMcpNameOnAMethodWithoutANameIsRefused: Mcp-Name mirrors the name of
// a tools/call, prompts/get or resources/read; on any other request it
// describes nothing the request does, yet the access matchers would read
// it as if it did (a policy chosen for calls of one tool would answer a
// tools/list). It is refused, in both eras, before they see it.
func TestMcpNameOnAMethodWithoutANameIsRefused(t *testing.T) {
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("echo", serveHTTP(t, echoServer()).URL)}})
	var seen []string
	ts := serveEdge(t, tg, EdgeOptions{Stateless: true, Identify: func(r *http.Request) (Caller, error) {
		seen = append(seen, r.Header.Get("Mcp-Name"))
		return Caller{}, nil
	}})
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + StatelessRevision + `","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, tc := range []struct{ name, version, method, body string }{
		{"tools/list, 2026-07-28", StatelessRevision, "tools/list", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`},
		{"server/discover, 2026-07-28", StatelessRevision, "server/discover", `{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{` + meta + `}}`},
		{"tools/list, earlier revision", "2025-11-25", "tools/list", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`},
		{"a batch of lists, earlier revision", "2025-03-26", "tools/list", `[{"jsonrpc":"2.0","id":4,"method":"tools/list"},{"jsonrpc":"2.0","id":5,"method":"tools/list"}]`},
	} {
		seen = nil
		status, answer := post(t, ts.URL, tc.body, map[string]string{"Mcp-Protocol-Version": tc.version, "Mcp-Method": tc.method, "Mcp-Name": "echo_echo"})
		if status != http.StatusBadRequest || !strings.Contains(answer, "Mcp-Name") {
			t.Errorf("%s with Mcp-Name: %d %.120s; want 400 about Mcp-Name", tc.name, status, answer)
		}
		if len(seen) > 0 {
			t.Errorf("%s: the access matchers saw Mcp-Name %q on a request that names nothing", tc.name, seen)
		}
	}
}
