package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// consentHost and consentToken are in the page an upstream asks its user
// to open: no log line may hold either.
const (
	consentHost  = "consent.example"
	consentToken = "tok-5e1f9a3c"
	consentURL   = "https://" + consentHost + "/authorize?token=" + consentToken
	// upstreamKey is the gateway's credential to the upstream, which a
	// careless upstream quotes in its page's URL.
	upstreamKey = "upstream-key-4d2b8e"
)

// consentUpstream is an upstream of an earlier revision whose tool pay,
// prompt receipt and resource pay://receipt answer with URL elicitation
// required (-32042) while need is set (clearing it), and answer after
// ("paid for <who>"); calls counts the requests, retried those that came
// with answers or a state, which the upstream never issued. Its tool
// always asks without end; its tool hostile answers -32042 with the data
// its argument "data" holds, as it is.
type consentUpstream struct {
	need           atomic.Bool
	calls, retried atomic.Int32
}

func (c *consentUpstream) server() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "pay"}, nil)
	ask := func(extra *mcp.RequestExtra, answers mcp.InputResponseMap, state string) error {
		c.calls.Add(1)
		if answers != nil || state != "" {
			c.retried.Add(1)
		}
		if !c.need.Swap(false) {
			return nil
		}
		url := consentURL
		if extra != nil && extra.Header.Get("X-Api-Key") != "" {
			url += "&key=" + extra.Header.Get("X-Api-Key")
		}
		return mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{Mode: "url", URL: url, Message: "Approve the payment at " + url, ElicitationID: "el-1"}})
	}
	s.AddTool(&mcp.Tool{Name: "pay", Description: "Pay.", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := ask(req.Extra, req.Params.InputResponses, req.Params.RequestState); err != nil {
				return nil, err
			}
			var args struct{ Who string }
			_ = json.Unmarshal(req.Params.Arguments, &args)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "paid for " + args.Who}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "always", Description: "Always asks.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{Mode: "url", URL: consentURL, Message: "Again", ElicitationID: "el-2"}})
		})
	s.AddTool(&mcp.Tool{Name: "hostile", Description: "Answers -32042 with any data.", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ Data string }
			_ = json.Unmarshal(req.Params.Arguments, &args)
			wire := &jsonrpc.Error{Code: mcp.CodeURLElicitationRequired, Message: "URL elicitation required"}
			if args.Data != "" {
				wire.Data = json.RawMessage(args.Data)
			}
			return nil, wire
		})
	s.AddPrompt(&mcp.Prompt{Name: "receipt", Arguments: []*mcp.PromptArgument{{Name: "who"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			if err := ask(req.Extra, req.Params.InputResponses, req.Params.RequestState); err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "paid for " + req.Params.Arguments["who"]}}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "pay://receipt", Name: "receipt"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			if err := ask(req.Extra, req.Params.InputResponses, req.Params.RequestState); err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "pay://receipt", Text: "paid"}}}, nil
		})
	return s
}

// startLoggedGateway is startGateway with every log line of the gateway
// and its upstream connections going to core; its upstreams must speak a
// revision earlier than the stateless one.
func startLoggedGateway(t *testing.T, cfg Config, core zapcore.Core) *testGateway {
	t.Helper()
	tg := startGatewayWith(t, cfg, Options{Logger: zap.New(core)})
	for _, u := range tg.upstreamsOf() {
		if v := u.ProtocolVersion(); v == "" || v >= StatelessRevision {
			t.Fatalf("the upstream speaks %q; want an earlier revision than %s", v, StatelessRevision)
		}
	}
	return tg
}

// Client capabilities a 2026-07-28 request declares.
var (
	urlCapable = map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}}
	formOnly   = map[string]any{"elicitation": map[string]any{}}
)

// urlRequest sends a 2026-07-28 request of method for name (a tool,
// prompt or resource URI), with arguments written as args ("" for none),
// declaring caps, and, if state is not "", that requestState with
// answers as inputResponses. It returns the decoded JSON-RPC answer.
func urlRequest(t *testing.T, url, method, name, args string, caps map[string]any, state string, answers map[string]any) map[string]any {
	t.Helper()
	params := map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": StatelessRevision,
		"io.modelcontextprotocol/clientCapabilities": caps}}
	if method == "resources/read" {
		params["uri"] = name
	} else {
		params["name"] = name
	}
	if args != "" {
		params["arguments"] = json.RawMessage(args)
	}
	if state != "" {
		params["requestState"], params["inputResponses"] = state, answers
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	_, resp := post(t, url, string(b), map[string]string{"Mcp-Protocol-Version": StatelessRevision, "Mcp-Method": method, "Mcp-Name": name})
	return decodeAnswer(t, resp)
}

// urlToolCaller calls tool of upstream pay in mode (as itself in
// passthrough mode, through execute_tool in meta mode) with the tool's
// arguments written as args.
func urlToolCaller(t *testing.T, url, mode, tool string) func(args string, caps map[string]any, state string, answers map[string]any) map[string]any {
	return func(args string, caps map[string]any, state string, answers map[string]any) map[string]any {
		t.Helper()
		if mode == ModeMeta {
			inner := `{"tool_name":"pay.` + tool + `"`
			if args != "" {
				inner += `,"arguments":` + args
			}
			return urlRequest(t, url, "tools/call", ExecuteToolName, inner+"}", caps, state, answers)
		}
		return urlRequest(t, url, "tools/call", "pay_"+tool, args, caps, state, answers)
	}
}

// accepted answers the URL question url1: the user opened the page.
func accepted(action string) map[string]any {
	return map[string]any{"url1": map[string]any{"action": action}}
}

// urlQuestionOf checks that m is input_required asking to open the page
// at want (url1, URL mode, the upstream's message and elicitationId), and
// returns its requestState.
func urlQuestionOf(t *testing.T, what string, m map[string]any, want string) string {
	t.Helper()
	state := stateOfAnswer(t, what, m)
	r := m["result"].(map[string]any)
	reqs, _ := r["inputRequests"].(map[string]any)
	q, _ := reqs["url1"].(map[string]any)
	p, _ := q["params"].(map[string]any)
	if len(reqs) != 1 || q["method"] != "elicitation/create" || p["mode"] != "url" || p["url"] != want ||
		p["elicitationId"] != "el-1" || p["message"] != "Approve the payment at "+want {
		t.Fatalf("%s: input requests %v; want url1, a URL elicitation of %s", what, reqs, want)
	}
	return state
}

// refusedAs checks that m refuses the request as a client in mode reads
// it: a JSON-RPC error with code in passthrough mode, a tool error with
// outcome in meta mode; either saying want.
func refusedAs(t *testing.T, what, mode string, m map[string]any, code int, outcome ErrorCode, want string) {
	t.Helper()
	var message string
	if e, _ := m["error"].(map[string]any); e != nil && mode != ModeMeta {
		if e["code"] != float64(code) {
			t.Errorf("%s: error %v, want code %d", what, e, code)
		}
		message, _ = e["message"].(string)
	} else if r, _ := m["result"].(map[string]any); mode == ModeMeta && r != nil && r["isError"] == true {
		if meta, _ := r["_meta"].(map[string]any); meta[ErrorMetaKey] != string(outcome) {
			t.Errorf("%s: %v, want gateway error %s", what, r, outcome)
		}
		var text string
		if content, _ := r["content"].([]any); len(content) > 0 {
			first, _ := content[0].(map[string]any)
			text, _ = first["text"].(string)
		}
		var e struct{ Error string }
		_ = json.Unmarshal([]byte(text), &e)
		message = e.Error
	} else {
		t.Errorf("%s: %v; want it refused", what, m)
		return
	}
	if !strings.Contains(message, want) {
		t.Errorf("%s: refused with %q, want it to say %q", what, message, want)
	}
}

// TestURLElicitationReachesStatelessClientAsInputRequired: an upstream of
// 2025-11-25 answers a call with URL elicitation required (-32042), which
// the 2026-07-28 revision forbids: its client gets input_required with
// the page to open, and its retry, the page accepted, calls the upstream
// again as first called (no answers, no state), and gets the tool's
// result. Declining or cancelling ends the call, the caller's failure; a
// state altered or presented with other arguments is refused; a client
// that cannot open pages gets -32021. No log line holds the page's URL.
func TestURLElicitationReachesStatelessClientAsInputRequired(t *testing.T) {
	for _, mode := range []string{ModePassthrough, ModeMeta} {
		t.Run(mode, func(t *testing.T) {
			up := &consentUpstream{}
			core, logs := observer.New(zap.DebugLevel)
			tg := startLoggedGateway(t, Config{Mode: mode, Upstreams: []*UpstreamConfig{httpUpstream("pay", serveHTTP(t, up.server()).URL)}}, core)
			ts := serveEdge(t, tg, EdgeOptions{})
			call := urlToolCaller(t, ts.URL, mode, "pay")

			up.need.Store(true)
			state := urlQuestionOf(t, "the first call", call(`{"who":"Ada"}`, urlCapable, "", nil), consentURL)
			if got := answerText(t, "the retry, the page opened", call(`{ "who" : "Ada" }`, urlCapable, state, accepted("accept"))); !strings.Contains(got, "paid for Ada") {
				t.Errorf("the retry, the page opened: %s; want the tool's result", got)
			}
			if calls, retried := up.calls.Load(), up.retried.Load(); calls != 2 || retried != 0 {
				t.Errorf("the upstream got %d calls, %d with answers or a state; want 2, the retry as the first call", calls, retried)
			}

			for _, action := range []string{"decline", "cancel"} {
				up.need.Store(true)
				state := urlQuestionOf(t, "a call", call(`{"who":"Ada"}`, urlCapable, "", nil), consentURL)
				refusedAs(t, "a retry answered "+action, mode, call(`{"who":"Ada"}`, urlCapable, state, accepted(action)),
					-32602, ErrInvalidArguments, "declined to open the page")
			}
			if calls := up.calls.Load(); calls != 4 {
				t.Errorf("the upstream got %d calls; want none for the declined retries", calls)
			}

			up.need.Store(true)
			state = urlQuestionOf(t, "a call", call(`{"who":"Ada"}`, urlCapable, "", nil), consentURL)
			tampered := []byte(state)
			mid := strings.IndexByte(state, '.') + 5
			tampered[mid] ^= 'A' ^ 'B'
			refusedAs(t, "a retry with an altered state", mode, call(`{"who":"Ada"}`, urlCapable, string(tampered), accepted("accept")),
				-32602, ErrInvalidArguments, "requestState was not issued")
			refusedAs(t, "a retry with other arguments", mode, call(`{"who":"Eve"}`, urlCapable, state, accepted("accept")),
				-32602, ErrInvalidArguments, "other arguments")
			refusedAs(t, "a retry without its answer", mode, call(`{"who":"Ada"}`, urlCapable, state, map[string]any{"other": map[string]any{"action": "accept"}}),
				-32602, ErrInvalidArguments, `no answer to the URL elicitation "url1"`)
			if calls := up.calls.Load(); calls != 5 {
				t.Errorf("the upstream got %d calls; want none for the refused retries", calls)
			}

			up.need.Store(true)
			refusedAs(t, "a call by a client that cannot open pages", mode, call(`{"who":"Ada"}`, formOnly, "", nil),
				mcp.CodeMissingRequiredClientCapabilities, ErrInvalidArguments, "elicitation.url")

			for _, e := range logs.All() {
				line := e.Message
				for k, v := range e.ContextMap() {
					line += " " + k + "=" + fmt.Sprint(v)
				}
				if strings.Contains(line, consentHost) || strings.Contains(line, consentToken) {
					t.Errorf("a log line holds the page's URL: %s", line)
				}
			}
		})
	}
}

// TestURLElicitationScrubsTheConnectionsSecrets: the page's URL reaches
// the client as the upstream wrote it (its query too: it may be the
// consent's own token), but for the gateway's credentials to the
// upstream, which the upstream may have quoted.
func TestURLElicitationScrubsTheConnectionsSecrets(t *testing.T) {
	up := &consentUpstream{}
	cfg := httpUpstream("pay", serveHTTP(t, up.server()).URL)
	cfg.Headers = http.Header{"X-Api-Key": {upstreamKey}}
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{cfg}})
	ts := serveEdge(t, tg, EdgeOptions{})
	up.need.Store(true)
	m := urlToolCaller(t, ts.URL, ModePassthrough, "pay")(`{"who":"Ada"}`, urlCapable, "", nil)
	urlQuestionOf(t, "the call", m, consentURL+"&key="+Redacted)
}

// TestURLElicitationOfPromptsAndResources: as for tools, an upstream's
// -32042 to prompts/get and resources/read reaches a 2026-07-28 client as
// input_required, and the accepted retry gets the answer.
func TestURLElicitationOfPromptsAndResources(t *testing.T) {
	up := &consentUpstream{}
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{httpUpstream("pay", serveHTTP(t, up.server()).URL)}})
	ts := serveEdge(t, tg, EdgeOptions{})
	for _, c := range []struct{ method, name, args, want string }{
		{"prompts/get", "pay_receipt", `{"who":"Ada"}`, "paid for Ada"},
		{"resources/read", "pay://receipt", "", "paid"},
	} {
		up.need.Store(true)
		state := urlQuestionOf(t, c.method, urlRequest(t, ts.URL, c.method, c.name, c.args, urlCapable, "", nil), consentURL)
		if got := answerText(t, c.method+" retried", urlRequest(t, ts.URL, c.method, c.name, c.args, urlCapable, state, accepted("accept"))); !strings.Contains(got, c.want) {
			t.Errorf("%s retried: %s; want %q", c.method, got, c.want)
		}
		up.need.Store(true)
		state = urlQuestionOf(t, c.method, urlRequest(t, ts.URL, c.method, c.name, c.args, urlCapable, "", nil), consentURL)
		refusedAs(t, c.method+" declined", ModePassthrough, urlRequest(t, ts.URL, c.method, c.name, c.args, urlCapable, state, accepted("decline")),
			-32602, ErrInvalidArguments, "declined to open the page")
	}
	if n := up.retried.Load(); n != 0 {
		t.Errorf("the upstream got %d requests with answers or a state it never issued", n)
	}
}

// TestURLElicitationRoundsAreBounded: an upstream that asks for a page
// again on every retry fails after maxInputRounds rounds, as its failure.
func TestURLElicitationRoundsAreBounded(t *testing.T) {
	for _, mode := range []string{ModePassthrough, ModeMeta} {
		t.Run(mode, func(t *testing.T) {
			tg := startGateway(t, Config{Mode: mode, Upstreams: []*UpstreamConfig{httpUpstream("pay", serveHTTP(t, (&consentUpstream{}).server()).URL)}})
			ts := serveEdge(t, tg, EdgeOptions{})
			call := urlToolCaller(t, ts.URL, mode, "always")
			state := ""
			for round := 1; round <= maxInputRounds; round++ {
				state = stateOfAnswer(t, fmt.Sprintf("round %d", round), call("", urlCapable, state, accepted("accept")))
			}
			refusedAs(t, "the retry after the last round", mode, call("", urlCapable, state, accepted("accept")),
				jsonrpc.CodeInternalError, ErrUpstream, fmt.Sprintf("more than %d rounds", maxInputRounds))
		})
	}
}

// TestMalformedURLElicitationIsTheUpstreamsFailure: -32042 whose data is
// not URL elicitations the gateway can ask its client about is relayed as
// a clear upstream error, not a panic, nor a question with no page.
func TestMalformedURLElicitationIsTheUpstreamsFailure(t *testing.T) {
	for _, mode := range []string{ModePassthrough, ModeMeta} {
		t.Run(mode, func(t *testing.T) {
			tg := startGateway(t, Config{Mode: mode, Upstreams: []*UpstreamConfig{httpUpstream("pay", serveHTTP(t, (&consentUpstream{}).server()).URL)}})
			ts := serveEdge(t, tg, EdgeOptions{})
			call := urlToolCaller(t, ts.URL, mode, "hostile")
			for _, c := range []struct{ data, want string }{
				{"", `data is not {"elicitations": [...]}`},
				{`"oops"`, `data is not {"elicitations": [...]}`},
				{`{"elicitations": {"mode": "url"}}`, `data is not {"elicitations": [...]}`},
				{`{"elicitations": [7]}`, `data is not {"elicitations": [...]}`},
				{`{}`, "named no page"},
				{`{"elicitations": []}`, "named no page"},
				{`{"elicitations": [null]}`, "elicitation 1 is not an object"},
				{`{"elicitations": [{"mode": "form", "message": "Name?"}]}`, `elicitation 1 has mode "form", not "url"`},
				{`{"elicitations": [{"mode": "url", "url": "https://a.example/"}, {"mode": "url", "message": "no url"}]}`, "elicitation 2 has no url"},
				{`{"elicitations": [` + strings.Repeat(`{"mode": "url", "url": "https://a.example/"},`, maxURLElicitations) + `{"mode": "url", "url": "https://a.example/"}]}`, "more than the 16"},
			} {
				args, _ := json.Marshal(map[string]string{"data": c.data})
				refusedAs(t, "data "+c.data, mode, call(string(args), urlCapable, "", nil), jsonrpc.CodeInternalError, ErrUpstream, c.want)
			}
		})
	}
}

// TestURLElicitationReachesEarlierClientAsBefore: a client of 2025-11-25
// gets the upstream's -32042 as it did before 2026-07-28 clients had it
// asked as a question: as the error itself through a passthrough tool,
// as execute_tool's upstream error in meta mode.
func TestURLElicitationReachesEarlierClientAsBefore(t *testing.T) {
	for _, mode := range []string{ModePassthrough, ModeMeta} {
		t.Run(mode, func(t *testing.T) {
			up := &consentUpstream{}
			tg := startGateway(t, Config{Mode: mode, Upstreams: []*UpstreamConfig{httpUpstream("pay", serveHTTP(t, up.server()).URL)}})
			ts := serveEdge(t, tg, EdgeOptions{})
			c := mcp.NewClient(&mcp.Implementation{Name: "old"}, &mcp.ClientOptions{
				Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
			})
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			up.need.Store(true)
			params := &mcp.CallToolParams{Name: "pay_pay", Arguments: map[string]any{"who": "Ada"}}
			if mode == ModeMeta {
				params = &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": "pay.pay", "arguments": map[string]any{"who": "Ada"}}}
			}
			res, err := cs.CallTool(context.Background(), params)
			var wire *jsonrpc.Error
			switch {
			case mode == ModePassthrough && (!errors.As(err, &wire) || wire.Code != mcp.CodeURLElicitationRequired):
				t.Errorf("the call: %v, %v; want error -32042", res, err)
			case mode == ModePassthrough && !strings.Contains(string(wire.Data), consentURL):
				// The page must open as the upstream gave it, query and all.
				t.Errorf("the -32042's data %s lost the page's URL %s", wire.Data, consentURL)
			case mode == ModeMeta && (err != nil || !res.IsError || res.Meta[ErrorMetaKey] != string(ErrUpstream) || !strings.Contains(text(res), "URL elicitation required")):
				t.Errorf("the call: %v, %v; want execute_tool's upstream error", res, err)
			}
		})
	}
}

// TestURLElicitationOfHeldCall: with `session per_client`, a 2026-07-28
// caller's call to an upstream of an earlier revision is held on an
// upstream session of its own; its -32042 reaches the caller as
// input_required too, and the accepted retry makes the call anew.
func TestURLElicitationOfHeldCall(t *testing.T) {
	up := &consentUpstream{}
	cfg := httpUpstream("pay", serveHTTP(t, up.server()).URL)
	cfg.Session = SessionPerClient
	tg := startGateway(t, Config{Mode: ModePassthrough, Upstreams: []*UpstreamConfig{cfg}})
	ts := serveEdge(t, tg, EdgeOptions{})
	call := urlToolCaller(t, ts.URL, ModePassthrough, "pay")
	up.need.Store(true)
	state := urlQuestionOf(t, "the first call", call(`{"who":"Ada"}`, urlCapable, "", nil), consentURL)
	if got := answerText(t, "the retry, the page opened", call(`{"who":"Ada"}`, urlCapable, state, accepted("accept"))); !strings.Contains(got, "paid for Ada") {
		t.Errorf("the retry, the page opened: %s; want the tool's result", got)
	}
	if calls, retried := up.calls.Load(), up.retried.Load(); calls != 2 || retried != 0 {
		t.Errorf("the upstream got %d calls, %d with answers or a state; want 2, the retry as the first call", calls, retried)
	}
	if n := tg.heldCount(); n != 0 {
		t.Errorf("%d calls still held", n)
	}
}
