package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// questioningServer is an upstream of the stateless revision whose tool
// greet asks the client for a name with an input_required result, then
// greets with the answer. Its state says what it asked, as a server's
// would.
func questioningServer(t *testing.T) *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "questioning"}, nil)
	s.AddTool(&mcp.Tool{Name: "greet", Description: "Greet the user by name.", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if answer, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult); ok {
				if req.Params.RequestState != "asked-for-name" {
					return nil, fmt.Errorf("upstream state %q came back changed", req.Params.RequestState)
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + answer.Content["name"].(string)}}}, nil
			}
			return &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{
					"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}},
				RequestState: "asked-for-name",
			}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(ts.Close)
	return ts
}

func answeringClient(version string) (*mcp.Client, *mcp.ClientSessionOptions) {
	c := mcp.NewClient(&mcp.Implementation{Name: "answering"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Grace"}}, nil
		},
	})
	if version == "" {
		return c, nil
	}
	return c, &mcp.ClientSessionOptions{ProtocolVersion: version}
}

// TestStatelessUpstreamsQuestionsReachClientsOfBothEras: an upstream of the
// stateless revision asks with input_required; a client of that revision
// gets the question (and its retry reaches the upstream with the
// upstream's own state), and a client of an earlier revision is asked on
// its session while the gateway retries for it.
func TestStatelessUpstreamsQuestionsReachClientsOfBothEras(t *testing.T) {
	tg := startGateway(t, Config{Mode: ModeHybrid, Pin: []string{"q.greet"}, Upstreams: []*UpstreamConfig{httpUpstream("q", questioningServer(t).URL)}})
	if v := tg.Catalog().Domain("q").upstream.ProtocolVersion(); v != StatelessRevision {
		t.Fatalf("the gateway speaks %q with the upstream, want %s", v, StatelessRevision)
	}
	ts := serveEdge(t, tg, EdgeOptions{})
	for _, version := range []string{"", "2025-11-25"} {
		client, opts := answeringClient(version)
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, call := range []*mcp.CallToolParams{
			{Name: "q_greet", Arguments: map[string]any{}},
			{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "q.greet", "arguments": map[string]any{}}},
		} {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			res, err := cs.CallTool(ctx, call)
			cancel()
			if err != nil || text(res) != "hello Grace" {
				b, _ := json.Marshal(res)
				t.Errorf("client at %q, %s: %s, %v", cs.InitializeResult().ProtocolVersion, call.Name, b, err)
			}
		}
		cs.Close()
	}
}

// TestRequestStateIsBoundToItsCallerAndRequest: the state the gateway hands
// out works only for the caller it was issued to and the request it was
// issued for, unaltered.
func TestRequestStateIsBoundToItsCallerAndRequest(t *testing.T) {
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("q", questioningServer(t).URL)}})
	ts := serveEdge(t, tg, EdgeOptions{Identify: func(r *http.Request) (Caller, error) {
		return Caller{User: r.Header.Get("X-User")}, nil
	}})
	call := func(user, tool, state string) (int, map[string]any) {
		params := map[string]any{"name": tool, "arguments": map[string]any{},
			"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": StatelessRevision, "io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}}}}
		if state != "" {
			params["requestState"] = state
			params["inputResponses"] = map[string]any{"name": map[string]any{"action": "accept", "content": map[string]any{"name": "Mallory"}}}
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
		status, resp := post(t, ts.URL, string(body), map[string]string{"X-User": user, "Mcp-Protocol-Version": StatelessRevision, "Mcp-Method": "tools/call", "Mcp-Name": tool})
		if i := strings.Index(resp, "{"); i >= 0 {
			resp = resp[i:]
		}
		var m map[string]any
		_ = json.Unmarshal([]byte(strings.TrimSpace(resp)), &m)
		return status, m
	}
	_, first := call("alice", "q_greet", "")
	result, _ := first["result"].(map[string]any)
	state, _ := result["requestState"].(string)
	if result["resultType"] != "input_required" || state == "" || state == "asked-for-name" {
		t.Fatalf("first call: %v; want input_required with a sealed state", first)
	}
	refused := func(who, tool, state string) {
		t.Helper()
		_, m := call(who, tool, state)
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != float64(-32602) {
			t.Errorf("%s retrying %s with state %.20q...: %v, want error -32602", who, tool, state, m)
		}
	}
	refused("bob", "q_greet", state)
	refused("alice", "q_greet", state+"x")
	refused("alice", "q_greet", strings.Replace(state, "s1.", "s1.e", 1))
	refused("alice", "q_greet", "asked-for-name")
	_, ok := call("alice", "q_greet", state)
	if r, _ := ok["result"].(map[string]any); r == nil || !strings.Contains(fmt.Sprint(r["content"]), "hello Mallory") {
		t.Errorf("alice's own retry: %v", ok)
	}
}

// TestStatelessUpstreamGetsRootsOnlyWithRelayRoots: an upstream of the
// stateless revision that asks for the client's roots gets them only with
// relay_roots; without, it is told of no roots capability, and its
// question is refused (naming the option) without reaching the client, of
// either era.
func TestStatelessUpstreamGetsRootsOnlyWithRelayRoots(t *testing.T) {
	var toldRoots []bool
	s := mcp.NewServer(&mcp.Implementation{Name: "rooted"}, nil)
	s.AddTool(&mcp.Tool{Name: "where", Description: "Say the client's roots.", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			caps, _ := req.Params.GetMeta()[metaClientCapabilities].(map[string]any)
			_, roots := caps["roots"]
			toldRoots = append(toldRoots, roots)
			if answer, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult); ok {
				var uris []string
				for _, r := range answer.Roots {
					uris = append(uris, r.URI)
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(uris, ",")}}}, nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}, RequestState: "asked"}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(ts.Close)
	for _, relay := range []bool{false, true} {
		up := httpUpstream("r", ts.URL)
		up.RelayRoots = relay
		tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{up}})
		edge := serveEdge(t, tg, EdgeOptions{})
		for _, version := range []string{"", "2025-11-25"} {
			toldRoots = nil
			client, asked := rootedClient()
			opts := &mcp.ClientSessionOptions{ProtocolVersion: version}
			if version == "" {
				opts = nil
			}
			cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: edge.URL}, opts)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "r.where", "arguments": map[string]any{}}})
			cancel()
			cs.Close()
			if err != nil {
				t.Fatalf("relay_roots %v, client at %q: %v", relay, version, err)
			}
			got := text(res)
			if relay && got != "file:///" {
				t.Errorf("with relay_roots, a client at %q: %q, want its root", version, got)
			}
			if !relay && (!strings.Contains(got, "relay_roots") || asked.Load() != 0 || len(toldRoots) != 1 || toldRoots[0]) {
				t.Errorf("without relay_roots, a client at %q: %q, asked %d times, upstream told roots %v; want a refusal naming relay_roots, the client never asked, the upstream told of no roots",
					version, got, asked.Load(), toldRoots)
			}
		}
	}
}
