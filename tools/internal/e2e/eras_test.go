package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
)

// erasCaddyfile serves two gateways from one Caddy: /pass in passthrough
// mode and /meta in meta mode, each in front of upstreams of both
// protocol eras: "modern", server2.mjs (TypeScript SDK 2.x, 2026-07-28
// only, asking its questions with input_required results); "gomodern",
// the go-sdk conformance server over stateless HTTP (2026-07-28, asking
// with input_required too: a second implementation of that revision);
// and "legacy", the go-sdk conformance server with sessions (2025-11-25,
// asking with requests of its own on the session, which needs `session
// per_client`). Each has relay_roots: the roots questions are part of
// what crosses the eras.
const erasCaddyfile = `{
	admin off
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	mcp_gateway /pass* {
		name passthrough
		mode passthrough
		upstream modern {MODERN_URL} {
			relay_roots
		}
		upstream gomodern {GOMODERN_URL} {
			relay_roots
		}
		upstream legacy {LEGACY_URL} {
			session per_client
			relay_roots
		}
	}
	mcp_gateway /meta* {
		name meta
		upstream modern {MODERN_URL} {
			relay_roots
		}
		upstream gomodern {GOMODERN_URL} {
			relay_roots
		}
		upstream legacy {LEGACY_URL} {
			session per_client
			relay_roots
		}
	}
}
`

// startEras starts both upstreams and the Caddy of erasCaddyfile, and
// returns the Caddy.
func startEras(t *testing.T) *testenv.CaddyInstance {
	t.Helper()
	legacy, _ := testenv.StartEverythingServer(t)
	gomodern, _ := testenv.StartStatelessEverythingServer(t)
	modern := testenv.StartServer2(t)
	return testenv.StartCaddy(t, strings.NewReplacer("{MODERN_URL}", modern, "{GOMODERN_URL}", gomodern, "{LEGACY_URL}", legacy).Replace(erasCaddyfile))
}

// eraClient is a client of one protocol era, with the answers it gives
// to every question: each client's answers are its own, so a result that
// holds them shows they came from it.
type eraClient struct {
	*testenv.TSClient
	era      string // "2026-07-28", or "2025-11-25" for the SDK 1.x client
	username string // its elicitation answer
	sample   string // its model's sampling answer
	roots    []string
	mode     string // the gateway it is connected to: passthrough or meta
}

// connectEra starts a client of era (testenv.Revision2026 for the SDK 2.x
// client, anything else for the SDK 1.x client) and connects it to the
// gateway of mode, answering sampling, elicitation and roots unless a
// capability is left out.
func connectEra(t *testing.T, caddy *testenv.CaddyInstance, era, mode string, without ...string) *eraClient {
	t.Helper()
	tag := "ts1"
	start := testenv.StartTSClient
	if era == testenv.Revision2026 {
		tag, start = "ts2", testenv.StartTS2Client
	}
	c := &eraClient{TSClient: start(t), era: era, mode: mode,
		username: tag + "-user", sample: tag + " model says hi",
		roots: []string{"file:///" + tag + "/alpha", "file:///" + tag + "/beta"}}
	path := "/pass"
	if mode == "meta" {
		path = "/meta"
	}
	cmd := map[string]any{"op": "connect", "url": caddy.URL(path)}
	if !slices.Contains(without, "elicitation") {
		cmd["elicitation"] = map[string]any{"action": "accept", "content": map[string]any{"username": c.username}}
	}
	if !slices.Contains(without, "sampling") {
		cmd["sampling"] = map[string]any{"text": c.sample}
	}
	if !slices.Contains(without, "roots") {
		var roots []map[string]any
		for i, uri := range c.roots {
			roots = append(roots, map[string]any{"uri": uri, "name": fmt.Sprint("root ", i)})
		}
		cmd["roots"] = roots
	}
	v := c.MustDo(cmd)
	session, _ := v["sessionId"].(string)
	if era == testenv.Revision2026 {
		if v["protocolVersion"] != testenv.Revision2026 || session != "" {
			t.Fatalf("the SDK 2.x client connected at %v with session %q through the gateway, want %s without a session", v["protocolVersion"], session, testenv.Revision2026)
		}
		c.checkWire(t, "connect", v)
	} else if session == "" {
		t.Fatalf("the SDK 1.x client connected without a session: %v", v)
	}
	return c
}

// checkWire checks that every HTTP request of a 2026-07-28 client's
// command carried that revision and no session ID.
func (c *eraClient) checkWire(t *testing.T, what string, answer map[string]any) {
	t.Helper()
	http, _ := answer["http"].([]any)
	if len(http) == 0 {
		t.Errorf("%s: the client recorded no HTTP requests", what)
	}
	for _, h := range http {
		h := h.(map[string]any)
		if h["protocolVersion"] != testenv.Revision2026 || h["sessionId"] != nil {
			t.Errorf("%s: an HTTP request carried MCP-Protocol-Version %v and Mcp-Session-Id %v, want %s and none", what, h["protocolVersion"], h["sessionId"], testenv.Revision2026)
		}
	}
}

// call calls an upstream tool, directly in passthrough mode or through
// execute_tool in meta mode, and returns the client's answer.
func (c *eraClient) call(domain, tool string, args map[string]any) map[string]any {
	cmd := map[string]any{"op": "callTool", "name": domain + "_" + tool, "arguments": args}
	if c.mode == "meta" {
		cmd["name"] = "execute_tool"
		cmd["arguments"] = map[string]any{"tool_name": domain + "." + tool, "arguments": args}
	}
	return c.Do(cmd)
}

// question is one kind of question an upstream asks, and how to tell that
// the client was asked and that its answer reached the upstream.
type question struct {
	kind  string // sampling, elicitation or roots
	tool  string
	args  map[string]any
	asked func(answer map[string]any) bool // the client received the question
	want  func(c *eraClient) string        // what the result must hold: the client's answer
}

// modernRoots is server2.mjs's roots question.
var modernRoots = question{"roots", "ask_roots", map[string]any{}, func(a map[string]any) bool { n, _ := a["roots"].(float64); return n >= 1 },
	func(c *eraClient) string { return "roots: " + strings.Join(c.roots, ", ") }}

// questionsOf are the questions of each upstream: server2.mjs and the
// stateless go-sdk server ask with input_required results (the go-sdk one
// asks for a name this client does not give, so it is asked only for
// sampling and roots), the go-sdk server with sessions with requests on
// its session (roots by its multi round-trip shim, which asks a client of
// an earlier revision with a request).
func questionsOf(upstream string) []question {
	samplingAsked := func(prompt string) func(map[string]any) bool {
		return func(a map[string]any) bool { return strings.Contains(fmt.Sprint(a["samplings"]), prompt) }
	}
	elicitationAsked := func(message string) func(map[string]any) bool {
		return func(a map[string]any) bool { return strings.Contains(fmt.Sprint(a["elicitations"]), message) }
	}
	rootsAsked := func(a map[string]any) bool { n, _ := a["roots"].(float64); return n >= 1 }
	switch upstream {
	case "gomodern":
		return []question{
			{"sampling", "test_input_required_result_sampling", map[string]any{}, samplingAsked("What is the capital of France?"),
				func(c *eraClient) string { return "Sampling response: " + c.sample }},
			{"roots", "test_input_required_result_list_roots", map[string]any{}, rootsAsked,
				func(c *eraClient) string {
					return fmt.Sprintf("Client exposed %d root(s): %s", len(c.roots), strings.Join(c.roots, ", "))
				}},
		}
	case "modern":
		return []question{
			{"sampling", "ask_sampling", map[string]any{"prompt": "Say hi to modern"}, samplingAsked("Say hi to modern"),
				func(c *eraClient) string { return "sampled: " + c.sample }},
			{"elicitation", "ask_elicitation", map[string]any{"message": "Who calls modern?"}, elicitationAsked("Who calls modern?"),
				func(c *eraClient) string { return "elicited: action=accept username=" + c.username }},
			// Its roots question has a test of its own: TestErasRootsFromSDK2Upstream.
		}
	}
	return []question{
		{"sampling", "test_sampling", map[string]any{"prompt": "Say hi to legacy"}, samplingAsked("Say hi to legacy"),
			func(c *eraClient) string { return "LLM response: " + c.sample }},
		{"elicitation", "test_elicitation", map[string]any{"message": "Who calls legacy?"}, elicitationAsked("Who calls legacy?"),
			func(c *eraClient) string { return "username:" + c.username }},
		{"roots", "test_input_required_result_list_roots", map[string]any{}, rootsAsked,
			func(c *eraClient) string {
				return fmt.Sprintf("Client exposed %d root(s): %s", len(c.roots), strings.Join(c.roots, ", "))
			}},
	}
}

// resultOf decodes a callTool answer's result.
func resultOf(t *testing.T, answer map[string]any) toolResult {
	t.Helper()
	b, _ := json.Marshal(answer["result"])
	var r toolResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	return r
}

// TestErasAskAcross runs, through a real Caddy in passthrough mode and
// through execute_tool in meta mode, the four combinations of client and
// upstream protocol eras, each with the three kinds of question an
// upstream may ask its client (sampling, elicitation, roots): the client
// is asked, its answer reaches the upstream (the tool's result holds it),
// and a 2026-07-28 client speaks that revision throughout, without a
// session.
//
//   - 2026-07-28 client and upstream: the upstream's input_required reaches
//     the client, and its retry the upstream;
//   - an earlier client and a 2026-07-28 upstream: the gateway asks on the
//     client's session and retries the upstream with the answers;
//   - earlier client and upstream: the upstream's requests on its session
//     are relayed on the client's (session per_client);
//   - a 2026-07-28 client and an earlier upstream: the upstream's request
//     becomes input_required for the client, and the client's answer goes
//     back to the upstream request, which waits for it (session
//     per_client). The gateway holds that upstream call open between the
//     client's rounds.
func TestErasAskAcross(t *testing.T) {
	caddy := startEras(t)
	eras := []struct{ name, client, upstream string }{
		{"client2026-upstream2026", testenv.Revision2026, "modern"},
		{"client2025-upstream2026", testenv.SessionRevision, "modern"},
		{"client2026-upstream2026go", testenv.Revision2026, "gomodern"},
		{"client2025-upstream2026go", testenv.SessionRevision, "gomodern"},
		{"client2025-upstream2025", testenv.SessionRevision, "legacy"},
		{"client2026-upstream2025", testenv.Revision2026, "legacy"},
	}
	for _, e := range eras {
		for _, mode := range []string{"passthrough", "meta"} {
			t.Run(e.name+"/"+mode, func(t *testing.T) {
				c := connectEra(t, caddy, e.client, mode)
				for _, q := range questionsOf(e.upstream) {
					c.ask(t, e.upstream, q)
				}
			})
		}
	}
}

// ask calls q's tool of upstream, and checks that the client was asked
// and that its answer reached the upstream.
func (c *eraClient) ask(t *testing.T, upstream string, q question) {
	t.Helper()
	answer := c.call(upstream, q.tool, q.args)
	if answer["ok"] != true {
		t.Errorf("%s: %s failed: %v (code %v)", q.kind, q.tool, answer["error"], answer["code"])
		return
	}
	r := resultOf(t, answer)
	if r.IsError || !strings.Contains(r.text(), q.want(c)) {
		t.Errorf("%s: %s answered %+v, want a result holding %q (the client's answer, back upstream)", q.kind, q.tool, r, q.want(c))
	}
	if !q.asked(answer) {
		t.Errorf("%s: the client was not asked (it received samplings %v, elicitations %v, %v roots requests)",
			q.kind, answer["samplings"], answer["elicitations"], answer["roots"])
	}
	if c.era == testenv.Revision2026 {
		c.checkWire(t, q.kind, answer)
	}
}

// TestErasRootsFromSDK2Upstream has the TypeScript SDK 2.x upstream ask
// clients of both eras for their roots, in both modes. That SDK writes the
// question as {"method":"roots/list"}, without params, which the revision
// allows, and which the go-sdk v1.8.0 the gateway reads it with cannot
// decode (docs/compatibility.md has the SDK's fix). The call fails with an
// error saying so; then a plain call of the same upstream must work: one
// answer the gateway cannot read must not make the upstream unavailable to
// the calls after it. (A test of its own, with its own Caddy, so that an
// upstream the gateway wrongly takes for down fails only this test.)
func TestErasRootsFromSDK2Upstream(t *testing.T) {
	caddy := startEras(t)
	for _, era := range []string{testenv.Revision2026, testenv.SessionRevision} {
		for _, mode := range []string{"passthrough", "meta"} {
			t.Run(era+"/"+mode, func(t *testing.T) {
				c := connectEra(t, caddy, era, mode)
				answer := c.call("modern", modernRoots.tool, modernRoots.args)
				if r := resultOf(t, answer); answer["ok"] != true || !r.IsError || !strings.Contains(r.text(), "could not read") {
					t.Errorf("the roots question the gateway cannot read: %v; want a tool error saying the answer could not be read", answer)
				}
				a := c.call("modern", "echo", map[string]any{"text": "still up"})
				if a["ok"] != true || resultOf(t, a).text() != "echo: still up" {
					t.Errorf("a plain call of the upstream after its roots question: %v", a)
				}
			})
		}
	}
}

// TestErasTwoRounds has a 2026-07-28 upstream ask two rounds of questions
// (an elicitation, then a sampling whose prompt holds the first answer,
// with the upstream's own request state between them) of a client of
// each era, through both modes: the upstream's state survives the trip
// through the gateway, and both answers arrive.
func TestErasTwoRounds(t *testing.T) {
	caddy := startEras(t)
	for _, era := range []string{testenv.Revision2026, testenv.SessionRevision} {
		for _, mode := range []string{"passthrough", "meta"} {
			t.Run(era+"/"+mode, func(t *testing.T) {
				c := connectEra(t, caddy, era, mode)
				answer := c.call("modern", "ask_twice", map[string]any{"message": "Your name, twice?"})
				if answer["ok"] != true {
					t.Fatalf("ask_twice failed: %v (code %v)", answer["error"], answer["code"])
				}
				want := fmt.Sprintf("twice: username=%s sampled=%s rounds=2", c.username, c.sample)
				if r := resultOf(t, answer); r.IsError || r.text() != want {
					t.Errorf("ask_twice answered %+v, want %q", r, want)
				}
				if !strings.Contains(fmt.Sprint(answer["samplings"]), "Write a greeting for "+c.username) {
					t.Errorf("the second round's question did not hold the first round's answer: samplings %v", answer["samplings"])
				}
				if c.era == testenv.Revision2026 {
					c.checkWire(t, "ask_twice", answer)
					if n := len(answer["http"].([]any)); n < 3 {
						t.Errorf("ask_twice took %d HTTP requests, want 3 or more (a call and two retries)", n)
					}
				}
			})
		}
	}
}

// TestErasMissingCapability has a 2026-07-28 client that declares no
// elicitation call a tool whose upstream asks for one, in both modes: the
// client gets a clear error naming the capability (-32021, or a tool
// error), not a hang and not a question it cannot answer.
func TestErasMissingCapability(t *testing.T) {
	caddy := startEras(t)
	for _, mode := range []string{"passthrough", "meta"} {
		t.Run(mode, func(t *testing.T) {
			c := connectEra(t, caddy, testenv.Revision2026, mode, "elicitation")
			answer := c.call("modern", "ask_elicitation", map[string]any{"message": "Who are you?"})
			t.Logf("a client without elicitation got: ok %v, error %v (code %v), result %v", answer["ok"], answer["error"], answer["code"], answer["result"])
			if answer["ok"] == true {
				r := resultOf(t, answer)
				if !r.IsError || !strings.Contains(r.text(), "elicitation") {
					t.Errorf("a client without elicitation got %+v, want an error naming the capability", r)
				}
				return
			}
			if answer["code"] != float64(-32021) || !strings.Contains(fmt.Sprint(answer["error"], answer["data"]), "elicitation") {
				t.Errorf("a client without elicitation got error %v (code %v, data %v), want -32021 naming elicitation", answer["error"], answer["code"], answer["data"])
			}
			if len(answer["elicitations"].([]any)) != 0 {
				t.Errorf("a client without elicitation was asked for one: %v", answer["elicitations"])
			}
			// The same client's other calls go on.
			if a := c.call("modern", "ask_sampling", map[string]any{"prompt": "still there?"}); a["ok"] != true || !strings.Contains(resultOf(t, a).text(), c.sample) {
				t.Errorf("the client's next call: %v", a)
			}
		})
	}
}

// TestTS2ClientMetaTools drives the three meta-tools with the TypeScript
// SDK 2.x client over 2026-07-28, through a real Caddy: it discovers the
// domains, reads a schema and executes a tool of a 2026-07-28-only
// upstream, without a session.
func TestTS2ClientMetaTools(t *testing.T) {
	caddy := startEras(t)
	c := connectEra(t, caddy, testenv.Revision2026, "meta")
	listed := c.MustDo(map[string]any{"op": "listTools"})
	c.checkWire(t, "listTools", listed)
	var names []string
	for _, tool := range listed["result"].(map[string]any)["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"discover_tools", "execute_tool", "get_tool_schema"}) {
		t.Errorf("tools/list over 2026-07-28 = %v, want the three meta-tools", names)
	}

	discovered := c.MustDo(map[string]any{"op": "callTool", "name": "discover_tools", "arguments": map[string]any{}})
	c.checkWire(t, "discover_tools", discovered)
	var domains struct {
		Domains []struct{ Name string } `json:"domains"`
	}
	resultOf(t, discovered).decode(t, &domains)
	var got []string
	for _, d := range domains.Domains {
		got = append(got, d.Name)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"gomodern", "legacy", "modern"}) {
		t.Errorf("discover_tools domains = %v, want gomodern, legacy and modern", got)
	}

	var search struct {
		Results []struct{ Name string } `json:"results"`
	}
	resultOf(t, c.MustDo(map[string]any{"op": "callTool", "name": "discover_tools", "arguments": map[string]any{"query": "echo text", "domain": "modern"}})).decode(t, &search)
	if len(search.Results) == 0 || search.Results[0].Name != "modern.echo" {
		t.Errorf("searching modern for echo found %+v, want modern.echo first", search.Results)
	}

	schema := resultOf(t, c.MustDo(map[string]any{"op": "callTool", "name": "get_tool_schema", "arguments": map[string]any{"tool_name": "modern.echo"}}))
	if schema.IsError || !strings.Contains(schema.text(), `"text"`) || !strings.Contains(schema.text(), "modern.echo") {
		t.Errorf("get_tool_schema modern.echo = %q, want its schema with the text argument", schema.text())
	}

	executed := c.MustDo(map[string]any{"op": "callTool", "name": "execute_tool", "arguments": map[string]any{"tool_name": "modern.echo", "arguments": map[string]any{"text": "over 2026-07-28"}}})
	c.checkWire(t, "execute_tool", executed)
	if r := resultOf(t, executed); r.IsError || r.text() != "echo: over 2026-07-28" {
		t.Errorf("execute_tool modern.echo = %+v", r)
	}
	// What the upstream was told about the caller: the revision, and the
	// client's own capabilities (relayed, not the gateway's).
	var envelope map[string]any
	if err := json.Unmarshal([]byte(resultOf(t, c.MustDo(map[string]any{"op": "callTool", "name": "execute_tool",
		"arguments": map[string]any{"tool_name": "modern.client_capabilities"}})).text()), &envelope); err != nil {
		t.Fatal(err)
	}
	caps, _ := envelope["io.modelcontextprotocol/clientCapabilities"].(map[string]any)
	if envelope["io.modelcontextprotocol/protocolVersion"] != testenv.Revision2026 || caps["elicitation"] == nil || caps["sampling"] == nil || caps["roots"] == nil {
		t.Errorf("the upstream was told %v, want 2026-07-28 and the client's elicitation, sampling and roots", envelope)
	}
}

// TestServer2IsModernOnly checks the peer the era tests rely on:
// server2.mjs speaks the 2026-07-28 revision only. It refuses the
// initialize handshake of earlier revisions (-32022, naming the revision
// it supports), so a gateway can reach it only in that revision, and it
// answers server/discover with that revision alone.
func TestServer2IsModernOnly(t *testing.T) {
	url := testenv.StartServer2(t)
	initialize := postRPC(t, url, nil, []byte(initializeMessage))
	if initialize.Error == nil || initialize.Error.Code != -32022 || !strings.Contains(string(initialize.Error.Data), testenv.Revision2026) {
		t.Errorf("initialize at 2025-11-25: HTTP %d, error %+v, result %s; want -32022 naming %s", initialize.Status, initialize.Error, initialize.Result, testenv.Revision2026)
	}
	var discover struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	a := post2026(t, url, nil, "server/discover", "", nil, map[string]any{})
	if a.Error != nil || json.Unmarshal(a.Result, &discover) != nil || !slices.Equal(discover.SupportedVersions, []string{testenv.Revision2026}) {
		t.Errorf("server/discover: HTTP %d, error %+v, result %s; want supportedVersions [%s]", a.Status, a.Error, a.Result, testenv.Revision2026)
	}
}
