package gateway

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// Every outcome a call is recorded with says whose failure it was: the
// caller's (invalid_arguments, unknown_tool), the upstream's
// (upstream_error, timeout, unavailable) or the gateway's own limits
// (busy). An operator alerting on the upstream's outcomes chases what they
// say.

// insistentAsker is an upstream of the stateless revision whose tool
// insist asks the client for a name in every answer, however often it is
// answered, and whose tool stall answers with input_required asking
// nothing (busy: retry later).
func insistentAsker(t *testing.T) *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "insistent"}, nil)
	question := mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{
		"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}}
	s.AddTool(&mcp.Tool{Name: "insist", Description: "Ask for a name, again and again.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{InputRequests: question, RequestState: "again"}, nil
		})
	s.AddTool(&mcp.Tool{Name: "stall", Description: "Ask nothing, and never answer.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{}, RequestState: "later"}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(ts.Close)
	return ts
}

// modeCall is the call of tool (domain.tool) in mode: itself in
// passthrough mode (prefixed domain_), through execute_tool in meta mode.
func modeCall(mode, domain, tool string) *mcp.CallToolParams {
	if mode == ModePassthrough {
		return &mcp.CallToolParams{Name: domain + "_" + tool, Arguments: map[string]any{}}
	}
	return &mcp.CallToolParams{Name: ExecuteToolName, Arguments: map[string]any{"tool_name": domain + "." + tool}}
}

// recordedOutcomes are the outcomes obs heard of, in order.
func recordedOutcomes(obs *recordingObserver) []string {
	obs.mu.Lock()
	defer obs.mu.Unlock()
	out := make([]string, len(obs.calls))
	for i, c := range obs.calls {
		out[i] = c.Outcome
	}
	return out
}

// TestUpstreamsEndlessQuestionsAreItsFailure: an upstream that asks
// question after question past the gateway's bound on rounds, or answers
// input_required asking nothing (it is busy), fails the call; the caller,
// who answered every question, did nothing wrong: the call is recorded as
// the upstream's failure, not as the caller's invalid_arguments.
func TestUpstreamsEndlessQuestionsAreItsFailure(t *testing.T) {
	for _, mode := range []string{ModePassthrough, ModeMeta} {
		t.Run(mode, func(t *testing.T) {
			obs := &recordingObserver{}
			tg := startGatewayWith(t, Config{Mode: mode, Upstreams: []*UpstreamConfig{httpUpstream("q", insistentAsker(t).URL)}},
				Options{Observer: obs})
			client, _ := answeringClient("")
			cs := connectIn(t, tg.Server(), client)
			for _, tool := range []string{"insist", "stall"} {
				res, err := cs.CallTool(context.Background(), modeCall(mode, "q", tool))
				if err == nil && !res.IsError {
					t.Fatalf("%s succeeded: %s", tool, text(res))
				}
			}
			got := recordedOutcomes(obs)
			if len(got) != 2 || got[0] != string(ErrUpstream) || got[1] != string(ErrUpstream) {
				t.Errorf("outcomes recorded: %v, want [%s %s]", got, ErrUpstream, ErrUpstream)
			}
		})
	}
}

// TestCallersFailureToAnswerIsItsOwn: a client of an earlier revision is
// asked an upstream's question on its session and fails to answer it (its
// handler errs): the call is recorded as the caller's failure,
// invalid_arguments, not as the upstream's, and execute_tool's error does
// not say the upstream rejected the call.
func TestCallersFailureToAnswerIsItsOwn(t *testing.T) {
	for _, mode := range []string{ModePassthrough, ModeMeta} {
		t.Run(mode, func(t *testing.T) {
			obs := &recordingObserver{}
			tg := startGatewayWith(t, Config{Mode: mode, Upstreams: []*UpstreamConfig{httpUpstream("q", insistentAsker(t).URL)}},
				Options{Observer: obs})
			cs := connectIn(t, tg.Server(), mcp.NewClient(&mcp.Implementation{Name: "failing"}, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return nil, errors.New("the dialog was closed")
				}}))
			res, err := cs.CallTool(context.Background(), modeCall(mode, "q", "insist"))
			switch {
			case err == nil && !res.IsError:
				t.Fatalf("the call succeeded: %s", text(res))
			case err == nil && strings.Contains(text(res), "rejected"):
				t.Errorf("execute_tool says the upstream rejected the call: %s", text(res))
			}
			if got := recordedOutcomes(obs); len(got) != 1 || got[0] != string(ErrInvalidArguments) {
				t.Errorf("outcomes recorded: %v, want [%s]", got, ErrInvalidArguments)
			}
		})
	}
}

// TestCallsOfToolsNotExposedAreRecorded: a tools/call naming a tool the
// session's server does not expose (one the caller's access rule hides, a
// tool hybrid mode does not pin, one that does not exist) is answered by
// the MCP SDK itself, "unknown tool", without reaching a handler; it is a
// tool call all the same, recorded and logged as unknown_tool with no
// domain or tool, as execute_tool records a name it does not know (and the
// caller's words never become a label).
func TestCallsOfToolsNotExposedAreRecorded(t *testing.T) {
	for _, mode := range []string{ModePassthrough, ModeHybrid, ModeMeta} {
		t.Run(mode, func(t *testing.T) {
			core, logs := observer.New(zapcore.InfoLevel)
			obs := &recordingObserver{}
			cfg := Config{Mode: mode, Upstreams: []*UpstreamConfig{httpUpstream("rich", serveHTTP(t, richServer()).URL)}}
			if mode == ModeHybrid {
				cfg.Pin = []string{"rich.add"}
			}
			tg := startGatewayWith(t, cfg, Options{Logger: zap.New(core), Observer: obs,
				Access: []AccessRule{{Deny: []string{"rich.fail"}}}})
			names := []string{"rich_fail", "no_such_tool"}
			if mode == ModeHybrid {
				names = append(names, "rich_everything") // not pinned
			}
			for _, name := range names {
				if _, err := tg.client.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}}); err == nil {
					t.Fatalf("calling %s succeeded", name)
				}
			}
			obs.mu.Lock()
			calls := append([]CallRecord(nil), obs.calls...)
			obs.mu.Unlock()
			if len(calls) != len(names) {
				t.Fatalf("calls recorded: %+v, want %d", calls, len(names))
			}
			for i, c := range calls {
				if c.Outcome != string(ErrUnknownTool) || c.Domain != "" || c.Tool != "" {
					t.Errorf("the call of %s recorded as %+v, want unknown_tool with no domain or tool", names[i], c)
				}
			}
			if n := logs.FilterMessage("tool call").Len(); n != len(names) {
				t.Errorf("%d tool call log lines, want %d", n, len(names))
			}
		})
	}
}

// TestCancelledCallIsNoUpstreamFailure: a call its client cancels while
// the upstream works on it is recorded as cancelled, in every mode: not as
// a timeout (execute_tool's answer to a cancelled call, which its client
// never reads) nor as upstream_error, which would page whoever runs the
// upstream for what a client chose.
func TestCancelledCallIsNoUpstreamFailure(t *testing.T) {
	for _, mode := range []string{ModePassthrough, ModeMeta} {
		t.Run(mode, func(t *testing.T) {
			obs := &recordingObserver{}
			cancelled := make(chan struct{}, 1)
			tg := startGatewayWith(t, Config{Mode: mode, Upstreams: []*UpstreamConfig{httpUpstream("duplex", serveHTTP(t, duplexServer(cancelled)).URL)}},
				Options{Observer: obs})
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				time.Sleep(200 * time.Millisecond)
				cancel()
			}()
			if _, err := tg.client.CallTool(ctx, modeCall(mode, "duplex", "wait")); err == nil {
				t.Fatal("a cancelled call succeeded")
			}
			<-cancelled
			waitFor(t, "the call recorded", func() bool { return len(recordedOutcomes(obs)) == 1 })
			if got := recordedOutcomes(obs); got[0] != OutcomeCancelled {
				t.Errorf("the cancelled call recorded as %q, want %q", got[0], OutcomeCancelled)
			}
		})
	}
}

// TestRoundsOfQuestionsAreRecordedAsSuch: a 2026-07-28 call that asks its
// client a question takes two rounds; the first, which ends with the
// question, is recorded as input_required, not as a call that succeeded,
// and the retry with the answer as the call's outcome. So it is whether
// the upstream asks in its answer (the stateless revision) or with a
// request of its own while the gateway holds the call.
func TestRoundsOfQuestionsAreRecordedAsSuch(t *testing.T) {
	for _, mode := range []string{ModePassthrough, ModeMeta} {
		t.Run(mode+"/stateless upstream", func(t *testing.T) {
			var retries atomic.Int32
			obs := &recordingObserver{}
			tg := startGatewayWith(t, Config{Mode: mode, Upstreams: []*UpstreamConfig{httpUpstream("q", argsQuestioningServer(t, &retries).URL)}},
				Options{Observer: obs})
			call := toolCaller(t, serveEdge(t, tg, EdgeOptions{}).URL, mode, "q", "greet")
			state := stateOfAnswer(t, "the first round", call(`{"who":"Grace"}`, "", ""))
			answerText(t, "the retry", call(`{"who":"Grace"}`, state, "name"))
			if got := recordedOutcomes(obs); !slices.Equal(got, []string{OutcomeInputRequired, OutcomeOK}) {
				t.Errorf("recorded %q, want [input_required ok]", got)
			}
		})
		t.Run(mode+"/held call", func(t *testing.T) {
			var asking atomic.Int32
			up := httpUpstream("asking", serveHTTP(t, patientAsker(&asking)).URL)
			up.Session = SessionPerClient
			obs := &recordingObserver{}
			tg := startGatewayWith(t, Config{Mode: mode, Upstreams: []*UpstreamConfig{up}}, Options{Observer: obs})
			call := toolCaller(t, serveEdge(t, tg, EdgeOptions{}).URL, mode, "asking", "ask_name")
			state := stateOfAnswer(t, "the first round", call(`{}`, "", ""))
			answerText(t, "the retry", call(`{}`, state, "q1"))
			if got := recordedOutcomes(obs); !slices.Equal(got, []string{OutcomeInputRequired, OutcomeOK}) {
				t.Errorf("recorded %q, want [input_required ok]", got)
			}
		})
	}
}

// pickyServer's tool pick refuses every call with invalid params (-32602),
// as a server does whose own checks go past the tool's schema; its tool
// crash fails every call with an internal error.
func pickyServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "picky"}, nil)
	s.AddTool(&mcp.Tool{Name: "pick", Description: "Pick one.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "choice must be one of red, green"}
		})
	s.AddTool(&mcp.Tool{Name: "crash", Description: "Fail.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "database down"}
		})
	return s
}

// TestUpstreamRefusingTheArgumentsIsTheCallersFailure: an upstream that
// answers a call with invalid params (-32602) refuses what the caller
// sent: the call is the caller's failure, invalid_arguments, in
// passthrough mode as through execute_tool (whose model reads that code
// as "fix the arguments"), where an upstream's other errors stay
// upstream_error.
func TestUpstreamRefusingTheArgumentsIsTheCallersFailure(t *testing.T) {
	for _, mode := range []string{ModePassthrough, ModeMeta} {
		t.Run(mode, func(t *testing.T) {
			obs := &recordingObserver{}
			tg := startGatewayWith(t, Config{Mode: mode, Upstreams: []*UpstreamConfig{httpUpstream("picky", serveHTTP(t, pickyServer()).URL)}},
				Options{Observer: obs})
			cs := connectIn(t, tg.Server(), mcp.NewClient(&mcp.Implementation{Name: "c"}, nil))
			for _, tool := range []string{"pick", "crash"} {
				res, err := cs.CallTool(context.Background(), modeCall(mode, "picky", tool))
				if mode == ModeMeta {
					want := map[string]ErrorCode{"pick": ErrInvalidArguments, "crash": ErrUpstream}[tool]
					if err != nil || res == nil || res.Meta[ErrorMetaKey] != string(want) {
						t.Errorf("execute_tool of %s: %v, %v; want the error code %s", tool, res, err, want)
					}
				} else if err == nil {
					t.Errorf("passthrough call of %s: no error", tool)
				}
			}
			if got := recordedOutcomes(obs); !slices.Equal(got, []string{string(ErrInvalidArguments), string(ErrUpstream)}) {
				t.Errorf("recorded %q, want [invalid_arguments upstream_error]", got)
			}
		})
	}
}
