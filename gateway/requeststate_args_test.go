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

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Secret-looking argument values, which no refusal may repeat.
const (
	firstValue  = "first-value-7c1e"
	secondValue = "second-value-93ad"
)

// statelessRawRequest sends a stateless (2026-07-28) request of method
// (tools/call or prompts/get) for name, declaring elicitation, with
// arguments written exactly as args ("" for none) and, if state is not
// "", that requestState and an answer with the name Ada to question
// answerID. It returns the decoded JSON-RPC answer.
func statelessRawRequest(t *testing.T, url, method, name, args, state, answerID string) map[string]any {
	t.Helper()
	params := map[string]any{"name": name,
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": StatelessRevision,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}}}}
	if args != "" {
		params["arguments"] = "ARGUMENTS"
	}
	if state != "" {
		params["requestState"] = state
		params["inputResponses"] = map[string]any{answerID: map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	body := strings.Replace(string(b), `"ARGUMENTS"`, args, 1) // as written: key order and whitespace kept
	_, resp := post(t, url, body, map[string]string{"Mcp-Protocol-Version": StatelessRevision, "Mcp-Method": method, "Mcp-Name": name})
	return decodeAnswer(t, resp)
}

// toolCaller calls tool (domain.tool) in mode: as itself in passthrough
// mode, through execute_tool in meta mode, with the tool's arguments
// written as args.
func toolCaller(t *testing.T, url, mode, domain, tool string) func(args, state, answerID string) map[string]any {
	return func(args, state, answerID string) map[string]any {
		t.Helper()
		if mode == ModeMeta {
			inner := `{"tool_name":"` + domain + "." + tool + `"`
			if args != "" {
				inner += `,"arguments":` + args
			}
			return statelessRawRequest(t, url, "tools/call", ExecuteToolName, inner+"}", state, answerID)
		}
		return statelessRawRequest(t, url, "tools/call", domain+"_"+tool, args, state, answerID)
	}
}

// stateOfAnswer returns the requestState of an input_required answer,
// failing the test if it is not one.
func stateOfAnswer(t *testing.T, what string, m map[string]any) string {
	t.Helper()
	r, _ := m["result"].(map[string]any)
	state, _ := r["requestState"].(string)
	if r == nil || r["resultType"] != "input_required" || state == "" {
		t.Fatalf("%s: %v; want input_required with a requestState", what, m)
	}
	return state
}

// refusedForArguments checks that m refuses a retry for its arguments, as
// what the mode's client reads (a JSON-RPC error -32602 for a
// passthrough request, a tool error for execute_tool), saying what to do,
// without any argument value.
func refusedForArguments(t *testing.T, what, mode string, m map[string]any) {
	t.Helper()
	var message string
	if e, _ := m["error"].(map[string]any); e != nil {
		if e["code"] != float64(-32602) {
			t.Errorf("%s: error %v, want code -32602", what, e)
		}
		message, _ = e["message"].(string)
	} else if r, _ := m["result"].(map[string]any); mode == ModeMeta && r != nil && r["isError"] == true {
		b, _ := json.Marshal(r["content"])
		message = string(b)
	} else {
		t.Errorf("%s: %v; want it refused", what, m)
		return
	}
	for _, want := range []string{"other arguments", "same arguments", "without requestState and inputResponses"} {
		if !strings.Contains(message, want) {
			t.Errorf("%s: refused with %q, want it to say %q", what, message, want)
		}
	}
	if strings.Contains(message, firstValue) || strings.Contains(message, secondValue) {
		t.Errorf("%s: the refusal %q repeats an argument's value", what, message)
	}
}

// answerText is the text of a successful answer's result (a tool's
// content or a prompt's messages), failing the test for an error.
func answerText(t *testing.T, what string, m map[string]any) string {
	t.Helper()
	r, _ := m["result"].(map[string]any)
	if r == nil || r["isError"] == true || r["resultType"] == "input_required" {
		t.Errorf("%s: %v; want a result", what, m)
		return ""
	}
	b, _ := json.Marshal(r)
	return string(b)
}

// TestHeldCallRetryWithOtherArgumentsIsRefused: a 2026-07-28 caller's call
// is held for its answer (an upstream of an earlier revision asks
// mid-call); a retry with the state and other arguments is refused, with
// what to do, rather than answering the call made with the first
// arguments as if for the new ones. The held call goes on: the retry with
// the first arguments, written in another key order and spacing, gets
// its result.
func TestHeldCallRetryWithOtherArgumentsIsRefused(t *testing.T) {
	for _, mode := range []string{ModePassthrough, ModeMeta} {
		t.Run(mode, func(t *testing.T) {
			var asking atomic.Int32
			up := httpUpstream("asking", serveHTTP(t, patientAsker(&asking)).URL)
			up.Session = SessionPerClient
			tg := startGateway(t, Config{Mode: mode, Upstreams: []*UpstreamConfig{up}})
			ts := serveEdge(t, tg, EdgeOptions{})
			call := toolCaller(t, ts.URL, mode, "asking", "ask_name")

			state := stateOfAnswer(t, "the first call", call(`{"who":"`+firstValue+`","n":1}`, "", ""))
			waitFor(t, "the upstream asking", func() bool { return asking.Load() == 1 })
			for _, other := range []string{`{"who":"` + secondValue + `","n":1}`, `{"who":"` + firstValue + `","n":1.0}`, `{"who":"` + firstValue + `"}`, ""} {
				refusedForArguments(t, "a retry with "+other, mode, call(other, state, "q1"))
			}
			if asking.Load() != 1 || tg.heldCount() != 1 {
				t.Fatalf("after the refused retries: %d upstream questions waiting, %d calls held; want the call held, its question waiting", asking.Load(), tg.heldCount())
			}
			got := answerText(t, "the retry with the first arguments", call(" {\n\t\"n\" : 1 ,  \"who\":\""+firstValue+"\" } ", state, "q1"))
			if !strings.Contains(got, "hello Ada, for "+firstValue) {
				t.Errorf("the retry with the first arguments: %s, want the greeting for them", got)
			}
		})
	}
}

// argsQuestioningServer is an upstream of the stateless revision whose
// tool greet and prompt greeting ask the client for a name with an
// input_required result, then greet with the answer for the arguments'
// "who". retries counts the retries (requests with answers) it got.
func argsQuestioningServer(t *testing.T, retries *atomic.Int32) *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "questioning"}, nil)
	question := mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{
		"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}}
	greet := func(answers mcp.InputResponseMap, who string) (string, bool) {
		a, ok := answers["name"].(*mcp.ElicitResult)
		if !ok {
			return "", false
		}
		retries.Add(1)
		return fmt.Sprintf("hello %s, for %s", a.Content["name"], who), true
	}
	s.AddTool(&mcp.Tool{Name: "greet", Description: "Greet the user by name.", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ Who string }
			_ = json.Unmarshal(req.Params.Arguments, &args)
			if text, ok := greet(req.Params.InputResponses, args.Who); ok {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
			}
			return &mcp.CallToolResult{InputRequests: question, RequestState: "asked"}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greeting", Arguments: []*mcp.PromptArgument{{Name: "who"}, {Name: "tone"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			if text, ok := greet(req.Params.InputResponses, req.Params.Arguments["who"]); ok {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
			}
			return &mcp.GetPromptResult{InputRequests: question, RequestState: "asked"}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(ts.Close)
	return ts
}

// TestStatelessUpstreamRetryWithOtherArgumentsIsRefused: an upstream of
// the stateless revision asks with input_required; a retry with the
// state and other arguments is refused before it reaches the upstream
// (which would get its own state with arguments it was not issued for).
// The same arguments in another key order and spacing are the same
// request; so are absent arguments and {}.
func TestStatelessUpstreamRetryWithOtherArgumentsIsRefused(t *testing.T) {
	for _, mode := range []string{ModePassthrough, ModeMeta} {
		t.Run(mode, func(t *testing.T) {
			var retries atomic.Int32
			tg := startGateway(t, Config{Mode: mode, Upstreams: []*UpstreamConfig{httpUpstream("q", argsQuestioningServer(t, &retries).URL)}})
			ts := serveEdge(t, tg, EdgeOptions{})
			call := toolCaller(t, ts.URL, mode, "q", "greet")

			first := `{"who":"` + firstValue + `","tone":"warm"}`
			state := stateOfAnswer(t, "the first call", call(first, "", ""))
			for _, other := range []string{`{"who":"` + secondValue + `","tone":"warm"}`, `{"who":"` + firstValue + `"}`, `{}`, ""} {
				refusedForArguments(t, "a retry with "+other, mode, call(other, state, "name"))
			}
			if n := retries.Load(); n != 0 {
				t.Fatalf("the upstream got %d retries with other arguments", n)
			}
			got := answerText(t, "the retry with the first arguments", call("{ \"tone\": \"warm\",\n \"who\" : \"\\u0066irst-value-7c1e\" }", state, "name"))
			if !strings.Contains(got, "hello Ada, for "+firstValue) {
				t.Errorf("the retry with the first arguments: %s, want the greeting for them", got)
			}

			// No arguments: absent, {} and null are all the same.
			for _, c := range [][2]string{{"", "{}"}, {"{}", ""}, {"null", " { } "}} {
				state := stateOfAnswer(t, "a call with arguments "+c[0], call(c[0], "", ""))
				if got := answerText(t, fmt.Sprintf("a call with arguments %q retried with %q", c[0], c[1]), call(c[1], state, "name")); !strings.Contains(got, "hello Ada") {
					t.Errorf("a call with arguments %q retried with %q: %s", c[0], c[1], got)
				}
			}
			state = stateOfAnswer(t, "a call without arguments", call("", "", ""))
			refusedForArguments(t, "a call without arguments retried with some", mode, call(first, state, "name"))
		})
	}
}

// TestPromptRetryWithOtherArgumentsIsRefused: as
// TestStatelessUpstreamRetryWithOtherArgumentsIsRefused, for prompts/get.
func TestPromptRetryWithOtherArgumentsIsRefused(t *testing.T) {
	var retries atomic.Int32
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("q", argsQuestioningServer(t, &retries).URL)}})
	ts := serveEdge(t, tg, EdgeOptions{})
	get := func(args, state string) map[string]any {
		return statelessRawRequest(t, ts.URL, "prompts/get", "q_greeting", args, state, "name")
	}
	state := stateOfAnswer(t, "the first prompts/get", get(`{"who":"`+firstValue+`","tone":"warm"}`, ""))
	for _, other := range []string{`{"who":"` + secondValue + `","tone":"warm"}`, `{"who":"` + firstValue + `"}`, ""} {
		refusedForArguments(t, "a retry with "+other, ModePassthrough, get(other, state))
	}
	if n := retries.Load(); n != 0 {
		t.Fatalf("the upstream got %d retries with other arguments", n)
	}
	got := answerText(t, "the retry with the first arguments", get(` { "tone" : "warm", "who": "`+firstValue+`" }`, state))
	if !strings.Contains(got, "hello Ada, for "+firstValue) {
		t.Errorf("the retry with the first arguments: %s, want the greeting for them", got)
	}
	state = stateOfAnswer(t, "a prompts/get without arguments", get("", ""))
	if got := answerText(t, "a prompts/get without arguments retried with {}", get("{}", state)); !strings.Contains(got, "hello Ada") {
		t.Errorf("a prompts/get without arguments retried with {}: %s", got)
	}
}

// TestRefusedRetryIsTheCallersFailure: a retry the gateway refuses (a
// state for other arguments, a state it never issued) is recorded as the
// caller's failure, invalid_arguments, in passthrough mode as through
// execute_tool: never as the upstream's, which an operator would chase.
func TestRefusedRetryIsTheCallersFailure(t *testing.T) {
	for _, mode := range []string{ModePassthrough, ModeMeta} {
		t.Run(mode, func(t *testing.T) {
			var retries atomic.Int32
			obs := &recordingObserver{}
			tg := startGatewayWith(t, Config{Mode: mode, Upstreams: []*UpstreamConfig{httpUpstream("q", argsQuestioningServer(t, &retries).URL)}},
				Options{Observer: obs})
			ts := serveEdge(t, tg, EdgeOptions{})
			call := toolCaller(t, ts.URL, mode, "q", "greet")

			state := stateOfAnswer(t, "the first call", call(`{"who":"`+firstValue+`"}`, "", ""))
			refusedForArguments(t, "a retry with other arguments", mode, call(`{"who":"`+secondValue+`"}`, state, "name"))
			call(`{"who":"`+firstValue+`"}`, "s1.bm90LWEtc3RhdGU.bm90LWEtbWFj", "name")

			obs.mu.Lock()
			defer obs.mu.Unlock()
			if len(obs.calls) != 3 {
				t.Fatalf("calls recorded: %+v, want 3", obs.calls)
			}
			for i, c := range obs.calls[1:] {
				if c.Outcome != string(ErrInvalidArguments) {
					t.Errorf("refused retry %d recorded as %q, want %q", i+1, c.Outcome, ErrInvalidArguments)
				}
			}
		})
	}
}
