package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Multi round-trip requests (SEP-2322). In the stateless revision a server
// that needs something from the client (a sampling, an elicitation, its
// roots) answers a tools/call, prompts/get or resources/read with an
// input_required result: its questions and an opaque requestState; the
// client retries the request with its answers (inputResponses) and that
// state. The gateway carries these across both protocol eras:
//
//   - an upstream's input_required reaches a client of the stateless
//     revision as it is, with the state sealed (requeststate.go), and the
//     client's retry reaches the upstream with the upstream's own state;
//   - for a client of an earlier revision with a session, the gateway asks
//     the client each question with a request on its session, and retries
//     the upstream itself with the answers, round after round;
//   - an upstream of an earlier revision asks with requests of its own; for
//     a client of the stateless revision, a client's own upstream session
//     (session per_client) turns them into input_required (pending.go);
//   - an upstream of an earlier revision that answers with URL elicitation
//     required (-32042), which the stateless revision forbids, has its
//     pages asked of a client of that revision as input_required
//     (urlelicitation.go).

// refusal is an error the gateway itself answers a request with while
// carrying questions (a request state it refuses, a capability the caller
// lacks, questions an upstream asks without end): passthrough clients get
// it as the JSON-RPC error it wraps, execute_tool turns it into a gateway
// error the model can read. outcome says whose failure it is, for the
// call's metrics and log line and execute_tool's error code: the caller's
// (ErrInvalidArguments, see refuse) or the upstream's (ErrUpstream, see
// refuseUpstream).
type refusal struct {
	wire    *jsonrpc.Error
	outcome ErrorCode
}

func (r refusal) Error() string { return r.wire.Message }
func (r refusal) Unwrap() error { return r.wire }

// refuse makes a refusal with code and message for what the caller did
// (or cannot do).
func refuse(code int64, format string, args ...any) error {
	return refusal{&jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)}, ErrInvalidArguments}
}

// refuseUpstream makes a refusal with code and message for what the
// upstream did: the caller could not have done otherwise.
func refuseUpstream(code int64, format string, args ...any) error {
	return refusal{&jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)}, ErrUpstream}
}

// maxInputRounds bounds the rounds of questions one request may take.
const maxInputRounds = 10

// inputExchange carries one request's questions to its caller and the
// answers back.
type inputExchange struct {
	g       *Gateway
	caller  Caller
	session *mcp.ServerSession
	// capsOf reads the capabilities the caller declared; see capabilities.
	capsOf   func() *mcp.ClientCapabilities
	caps     *mcp.ClientCapabilities
	capsRead bool
	// stateless: the caller speaks the stateless revision, so questions go
	// back in the result; else the gateway asks them on the caller's
	// session, if it has one (askable).
	stateless, askable   bool
	method, domain, name string
	// args are the request's arguments as the client sent them, which its
	// request states are bound to: tools/call's (execute_tool's inner
	// ones), prompts/get's encoded, none for resources/read.
	args json.RawMessage
	// relayRoots: the domain's upstream may learn the caller's roots
	// (UpstreamConfig.RelayRoots).
	relayRoots bool
}

// exchange makes the inputExchange of a request to domain's name with
// arguments args; caps reads the capabilities the request's client
// declared (a request's ClientCapabilities method).
func (g *Gateway) exchange(req mcp.Request, caps func() *mcp.ClientCapabilities, version, method, domain, name string, args json.RawMessage) *inputExchange {
	ss, _ := req.GetSession().(*mcp.ServerSession)
	stateless := version >= StatelessRevision
	s := g.current()
	askable := !stateless && ss != nil && !s.stateless
	cfg := s.byName[domain]
	return &inputExchange{
		g: g, caller: g.callerOf(req.GetExtra()), session: ss,
		capsOf:    caps,
		stateless: stateless, askable: askable,
		method: method, domain: domain, name: name, args: args,
		relayRoots: cfg != nil && cfg.RelayRoots,
	}
}

// capabilities are the capabilities the caller can answer questions with.
// They are read when first needed: most calls never ask, and reading a
// stateless request's capabilities decodes them from its _meta.
func (x *inputExchange) capabilities() *mcp.ClientCapabilities {
	if !x.capsRead {
		x.capsRead = true
		var declared *mcp.ClientCapabilities
		if x.capsOf != nil {
			declared = x.capsOf()
		}
		x.caps = callerCapabilities(declared, x.stateless || x.askable, x.relayRoots)
	}
	return x.caps
}

// prepare readies an upstream request's params: the caller's capabilities
// in _meta for an upstream of the stateless revision (which reads them
// from each request), and for a retry, the caller's answers with the
// upstream's own state from the sealed one the caller echoes, once it is
// checked against the request (arguments included; see stateKey.open).
func (x *inputExchange) prepare(u *Upstream, meta *mcp.Meta, state string) (roundState, error) {
	if u.ProtocolVersion() >= StatelessRevision {
		if *meta == nil {
			*meta = mcp.Meta{}
		}
		(*meta)[metaClientCapabilities] = capabilitiesMeta(x.capabilities())
	}
	if state == "" {
		return roundState{}, nil
	}
	return x.g.stateKey().open(state, x.caller, x.method, x.domain, x.name, x.args)
}

// seal makes the request state handed to the caller for the upstream's
// state upstream (or a call held open, pending), bound to the request's
// arguments.
func (x *inputExchange) seal(upstream, pending string) string {
	return x.g.stateKey().seal(x.g.current().sessionIDPrefix, x.caller, roundState{
		Method: x.method, Domain: x.domain, Name: x.name, Upstream: upstream, Pending: pending,
	}, x.args)
}

// questions decides what becomes of an upstream's input_required answer in
// round (from 1): for a stateless caller, the sealed state to hand it with
// the questions; for an askable caller, its answers, for the gateway to
// retry with. It fails, with what the model or client can act on, when the
// caller cannot answer.
func (x *inputExchange) questions(ctx context.Context, reqs mcp.InputRequestMap, upstreamState string, round int) (sealed string, answers mcp.InputResponseMap, err error) {
	if err := x.unanswerable(reqs); err != nil {
		return "", nil, err
	}
	switch {
	case x.stateless:
		return x.seal(upstreamState, ""), nil, nil
	case !x.askable:
		return "", nil, refuse(mcp.CodeMissingRequiredClientCapabilities,
			"%s needs to ask its client questions, which this gateway cannot relay to a client it serves without a session (stateless)", x.what())
	case len(reqs) == 0:
		return "", nil, refuseUpstream(jsonrpc.CodeInternalError, "%s is busy; retry later", x.what())
	case round >= maxInputRounds:
		return "", nil, refuseUpstream(jsonrpc.CodeInternalError, "%s asked more than %d rounds of questions", x.what(), maxInputRounds)
	}
	answers, err = x.ask(ctx, reqs)
	return "", answers, err
}

// unanswerable refuses questions the caller is not to be asked: roots for
// an upstream without RelayRoots, and any that need capabilities the
// caller lacks. It is nil if the caller can answer them all.
func (x *inputExchange) unanswerable(reqs mcp.InputRequestMap) error {
	if !x.relayRoots {
		for _, ir := range reqs {
			if _, ok := ir.(*mcp.ListRootsParams); ok {
				return refuse(mcp.CodeMissingRequiredClientCapabilities,
					"%s asks for its client's roots, which this gateway relays only to an upstream with relay_roots", x.what())
			}
		}
	}
	if missing := x.missingCapabilities(reqs); len(missing) > 0 {
		return x.missingError(missing)
	}
	return nil
}

// missingError refuses questions that need capabilities the caller lacks.
func (x *inputExchange) missingError(missing []string) error {
	return refuse(mcp.CodeMissingRequiredClientCapabilities,
		"%s needs the client capabilities %s to ask its client questions, and this client did not declare them",
		x.what(), strings.Join(missing, ", "))
}

// what names the request in errors.
func (x *inputExchange) what() string {
	return fmt.Sprintf("upstream %q (%s %s)", x.domain, x.method, x.name)
}

// missingCapabilities lists the capabilities the questions need that the
// caller lacks.
func (x *inputExchange) missingCapabilities(reqs mcp.InputRequestMap) []string {
	seen := map[string]bool{}
	var out []string
	for _, ir := range reqs {
		if c := missingCapability(ir, x.capabilities()); c != "" && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// ask puts each question to the caller on its session and collects the
// answers.
func (x *inputExchange) ask(ctx context.Context, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	answers := make(mcp.InputResponseMap, len(reqs))
	for id, ir := range reqs {
		var resp mcp.InputResponse
		var err error
		switch p := ir.(type) {
		case *mcp.ElicitParams:
			resp, err = elicitVerbatim(ctx, x.session, p)
		case *mcp.CreateMessageParams:
			resp, err = x.session.CreateMessage(ctx, p)
		case *mcp.CreateMessageWithToolsParams:
			resp, err = x.session.CreateMessageWithTools(ctx, p)
		case *mcp.ListRootsParams:
			resp, err = x.session.ListRoots(ctx, p)
		default:
			err = fmt.Errorf("unknown kind of question %T", ir)
		}
		if err != nil {
			return nil, unanswered{fmt.Errorf("asking the client for %s's input %q: %w", x.what(), id, err)}
		}
		answers[id] = resp
	}
	return answers, nil
}

// unanswered is the error of a question the caller was asked on its
// session and did not answer (its answer was an error, or never came): the
// caller's failure, not the upstream's.
type unanswered struct{ err error }

func (u unanswered) Error() string { return u.err.Error() }
func (u unanswered) Unwrap() error { return u.err }

// questionsOf returns an upstream result's questions and a pointer to its
// request state, for the three kinds of result that may ask.
func questionsOf(res mcp.Result) (mcp.InputRequestMap, *string) {
	switch r := res.(type) {
	case *mcp.CallToolResult:
		return r.InputRequests, &r.RequestState
	case *mcp.GetPromptResult:
		return r.InputRequests, &r.RequestState
	case *mcp.ReadResourceResult:
		return r.InputRequests, &r.RequestState
	}
	return nil, new(string)
}

// follow makes an upstream request with call, and while the upstream
// answers with questions, hands them to a stateless caller (the result
// goes back with the state sealed) or asks an askable caller and calls
// again with its answers and the upstream's state.
func follow[R interface {
	mcp.Result
	NeedsInput() bool
}](ctx context.Context, x *inputExchange, answers mcp.InputResponseMap, state string, call func(mcp.InputResponseMap, string) (R, error)) (R, error) {
	res, err := call(answers, state)
	for round := 1; err == nil && res.NeedsInput(); round++ {
		questions, statePtr := questionsOf(res)
		sealed, answers, qerr := x.questions(ctx, questions, *statePtr, round)
		switch {
		case qerr != nil:
			var zero R
			return zero, qerr
		case answers == nil:
			*statePtr = sealed
			return res, nil
		}
		res, err = call(answers, *statePtr)
	}
	return res, err
}
