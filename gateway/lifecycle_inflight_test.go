package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// statelessToolCall sends a stateless (2026-07-28) tools/call of tool,
// declaring elicitation, with extra params (requestState,
// inputResponses), and returns the decoded JSON-RPC answer.
func statelessToolCall(t *testing.T, url, tool string, extra map[string]any) map[string]any {
	t.Helper()
	params := map[string]any{"name": tool, "arguments": map[string]any{},
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": StatelessRevision,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}}}}
	for k, v := range extra {
		params[k] = v
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	_, resp := post(t, url, string(body), map[string]string{"Mcp-Protocol-Version": StatelessRevision, "Mcp-Method": "tools/call", "Mcp-Name": tool})
	return decodeAnswer(t, resp)
}

// decodeAnswer decodes the JSON-RPC answer in resp, a plain JSON body or
// one server-sent event, failing the test if there is none.
func decodeAnswer(t *testing.T, resp string) map[string]any {
	t.Helper()
	if i := strings.Index(resp, "{"); i >= 0 {
		resp = resp[i:]
	}
	if j := strings.LastIndex(resp, "}"); j >= 0 {
		resp = resp[:j+1]
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(resp), &m); err != nil {
		t.Fatalf("answer %q: %v", resp, err)
	}
	return m
}

// patientAsker is an upstream of an earlier revision whose tool ask_name
// elicits a name and waits for it up to 15s, then greets the name ("hello
// Ada"), for the arguments' "who" if they have one ("hello Ada, for
// Grace"); asking counts the handlers still waiting.
func patientAsker(asking *atomic.Int32) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "asking"}, nil)
	s.AddTool(&mcp.Tool{Name: "ask_name", Description: "Ask the user's name.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			asking.Add(1)
			defer asking.Add(-1)
			var args struct{ Who string }
			_ = json.Unmarshal(req.Params.Arguments, &args)
			ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
			defer cancel()
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
			if err != nil {
				return nil, err
			}
			text := fmt.Sprintf("hello %v", res.Content["name"])
			if args.Who != "" {
				text += ", for " + args.Who
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	return s
}

// heldQuestion starts a stateless call of asking_ask_name held for the
// caller's answer and returns its requestState.
func heldQuestion(t *testing.T, url string) string {
	t.Helper()
	m := statelessToolCall(t, url, "asking_ask_name", nil)
	r, _ := m["result"].(map[string]any)
	state, _ := r["requestState"].(string)
	if r == nil || r["resultType"] != "input_required" || state == "" {
		t.Fatalf("the call was not held for the caller's answer: %v", m)
	}
	return state
}

// answerName retries asking_ask_name with state and the caller's answer.
func answerName(t *testing.T, url, state string) map[string]any {
	t.Helper()
	return statelessToolCall(t, url, "asking_ask_name", map[string]any{
		"requestState":   state,
		"inputResponses": map[string]any{"q1": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}},
	})
}

// TestReloadEndsHeldCallsItsCallerCannotResume: a 2026-07-28 caller's call
// is held for its answer when a reload hides the tool from the caller's
// policy, or removes the upstream. The caller can no longer resume it (its
// retry is refused as for any hidden tool), so the held call ends at once:
// the upstream's question is withdrawn and the call's own upstream session
// and its place among max_client_sessions are given back, rather than held
// until the call's timeout.
func TestReloadEndsHeldCallsItsCallerCannotResume(t *testing.T) {
	for _, reload := range []string{"hidden", "removed"} {
		t.Run(reload, func(t *testing.T) {
			var asking atomic.Int32
			up := httpUpstream("asking", serveHTTP(t, patientAsker(&asking)).URL)
			up.Session = SessionPerClient
			up.Timeout = Duration(30 * time.Second)
			other := httpUpstream("other", serveHTTP(t, contentServer("other")).URL)
			cfg := Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{up, other}}
			tg := startGateway(t, cfg)
			ts := serveEdge(t, tg, EdgeOptions{})
			state := heldQuestion(t, ts.URL)
			waitFor(t, "the upstream asking", func() bool { return asking.Load() == 1 })

			ups := tg.current().upstreams
			opts := Options{}
			switch reload {
			case "hidden":
				opts.Access = []AccessRule{{Deny: []string{"asking.ask_name"}}}
			case "removed":
				cfg = Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{other}}
				ups = ups[1:]
			}
			if err := tg.Update(cfg, ups, opts); err != nil {
				t.Fatal(err)
			}
			m := answerName(t, ts.URL, state)
			if r, _ := m["result"].(map[string]any); m["error"] == nil && (r == nil || r["isError"] != true) {
				t.Errorf("the caller's answer to a held call of a tool the reload %s was taken: %v", reload, m)
			}
			// The held call ends at once; its upstream session closes
			// within Upstream.Close's bound (the upstream may hold the
			// session's end for its handler, whose question got its error
			// as the session ended: see TestRefusedHeldCallEnds).
			if !within(2*time.Second, func() bool { return tg.heldCount() == 0 }) {
				t.Errorf("2s after a reload %s the tool of a held call, the call is still held", reload)
			}
			if !within(15*time.Second, func() bool { return tg.clients.open("asking") == 0 }) {
				t.Errorf("15s after a reload %s the tool of a held call, its upstream session still counts among max_client_sessions", reload)
			}
		})
	}
}

// TestReloadKeepsHeldCallsItsCallerCanResume: a reload that changes
// nothing of a held call's tool, or only its upstream's connection (a
// rotated token), lets the call go on, as calls in flight do: the
// caller's answer reaches the upstream's waiting question.
func TestReloadKeepsHeldCallsItsCallerCanResume(t *testing.T) {
	for _, reload := range []string{"unchanged", "new token"} {
		t.Run(reload, func(t *testing.T) {
			var asking atomic.Int32
			up := httpUpstream("asking", serveHTTP(t, patientAsker(&asking)).URL)
			up.Session = SessionPerClient
			cfg := Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{up}}
			tg := startGateway(t, cfg)
			ts := serveEdge(t, tg, EdgeOptions{})
			state := heldQuestion(t, ts.URL)

			ups := tg.current().upstreams
			if reload == "new token" {
				after := *up
				after.Headers = http.Header{"Authorization": {"Bearer new"}}
				cfg = Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{&after}}
				next := NewUpstream(after.Connection, UpstreamOptions{Discovery: true})
				t.Cleanup(func() { next.Close() })
				ups = []*Upstream{next}
			}
			if err := tg.Update(cfg, ups, Options{}); err != nil {
				t.Fatal(err)
			}
			m := answerName(t, ts.URL, state)
			r, _ := m["result"].(map[string]any)
			if b, _ := json.Marshal(r); !strings.Contains(string(b), "hello Ada") {
				t.Errorf("the caller's answer to a call held across a reload (%s): %v, want hello Ada", reload, m)
			}
			if !within(2*time.Second, func() bool { return tg.heldCount() == 0 && tg.clients.open("asking") == 0 }) {
				t.Errorf("after the held call ended: %d calls held, %d clients' own upstream sessions", tg.heldCount(), tg.clients.open("asking"))
			}
		})
	}
}

// within reports whether cond holds within d, polling.
func within(d time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(d); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// TestReloadBetweenRoundsKeepsTheCall: a client with a session calls a
// tool of an upstream of the stateless revision, which asks a question
// (input_required); while the gateway waits for the client's answer, a
// reload changes the upstream's connection (a rotated token) and the old
// connection is closed, as the pool closes one no config uses. The
// gateway's retry with the answer goes through the domain's connection in
// force (the upstream keeps nothing between rounds but the state it
// handed out), and the call succeeds. A reload that hid the tool from the
// client meanwhile refuses the retry.
func TestReloadBetweenRoundsKeepsTheCall(t *testing.T) {
	for _, session := range []string{SessionShared, SessionPerClient} {
		for _, reload := range []string{"new token", "hidden"} {
			t.Run(session+"/"+reload, func(t *testing.T) { reloadBetweenRounds(t, session, reload) })
		}
	}
}

func reloadBetweenRounds(t *testing.T, session, reload string) {
	url := questioningServer(t).URL
	config := func(token string) Config {
		u := httpUpstream("q", url)
		u.Session = session
		u.Headers = http.Header{"Authorization": {"Bearer " + token}}
		return Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{u}}
	}
	tg := startGateway(t, config("old"))
	old := tg.Catalog().Domain("q").upstream
	cs, asked, answer := heldAnswerClient(t, tg)
	done := callInBackground(cs, &mcp.CallToolParams{Name: "q_greet", Arguments: map[string]any{}})
	<-asked
	if reload == "hidden" {
		if err := tg.Update(config("old"), []*Upstream{old}, Options{Access: []AccessRule{{Deny: []string{"q.greet"}}}}); err != nil {
			t.Fatal(err)
		}
		close(answer)
		if o := <-done; o.err == nil || !strings.Contains(o.err.Error(), "no longer available") {
			t.Errorf("a call whose tool a reload hid while its client answered: %v, %v; want it refused", o.res, o.err)
		}
		return
	}
	reloadOntoNewConnection(t, tg, config("new"), old)
	close(answer)
	o := <-done
	if o.err != nil || text(o.res) != "hello Grace" {
		b, _ := json.Marshal(o.res)
		t.Errorf("a call whose client answered across a reload: %s, %v; want hello Grace", b, o.err)
	}
}

// questioningItemsServer is an upstream of the stateless revision whose
// prompt ask and resource q://thing ask the client for a name with an
// input_required result, then answer with it.
func questioningItemsServer(t *testing.T) *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "questioning"}, nil)
	question := mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{
		"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}}
	s.AddPrompt(&mcp.Prompt{Name: "ask"}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if a, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult); ok {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello " + a.Content["name"].(string)}}}}, nil
		}
		return &mcp.GetPromptResult{InputRequests: question, RequestState: "asked"}, nil
	})
	s.AddResource(&mcp.Resource{URI: "q://thing", Name: "thing"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		if a, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult); ok {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "hello " + a.Content["name"].(string)}}}, nil
		}
		return &mcp.ReadResourceResult{InputRequests: question, RequestState: "asked"}, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(ts.Close)
	return ts
}

// TestReloadBetweenRoundsOfPromptsAndReads: as
// TestReloadBetweenRoundsKeepsTheCall, for prompts/get and resources/read.
func TestReloadBetweenRoundsOfPromptsAndReads(t *testing.T) {
	url := questioningItemsServer(t).URL
	for _, kind := range []string{"prompt", "resource"} {
		for _, reload := range []string{"new token", "hidden"} {
			t.Run(kind+"/"+reload, func(t *testing.T) {
				config := func(token string) Config {
					u := httpUpstream("q", url)
					u.Headers = http.Header{"Authorization": {"Bearer " + token}}
					return Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{u}}
				}
				tg := startGateway(t, config("old"))
				old := tg.Catalog().Domain("q").upstream
				cs, asked, answer := heldAnswerClient(t, tg)
				done := make(chan string, 1)
				go func() {
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					defer cancel()
					if kind == "prompt" {
						res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "q_ask"})
						if err != nil {
							done <- err.Error()
							return
						}
						b, _ := json.Marshal(res)
						done <- string(b)
						return
					}
					res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "q://thing"})
					if err != nil {
						done <- err.Error()
						return
					}
					b, _ := json.Marshal(res)
					done <- string(b)
				}()
				<-asked
				want := "hello Grace"
				if reload == "hidden" {
					deny := "q.prompt:ask"
					if kind == "resource" {
						deny = "q.resource:q://thing"
					}
					if err := tg.Update(config("old"), []*Upstream{old}, Options{Access: []AccessRule{{Deny: []string{deny}}}}); err != nil {
						t.Fatal(err)
					}
					want = map[string]string{"prompt": "unknown prompt", "resource": "not found"}[kind]
				} else {
					reloadOntoNewConnection(t, tg, config("new"), old)
				}
				close(answer)
				if got := <-done; !strings.Contains(strings.ToLower(got), strings.ToLower(want)) {
					t.Errorf("a %s whose client answered across a reload (%s): %s; want %q", kind, reload, got, want)
				}
			})
		}
	}
}
