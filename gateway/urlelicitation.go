package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// URL elicitation required (SEP-1036). An upstream of the 2025-11-25
// revision may answer a request with the JSON-RPC error -32042, whose data
// lists URL-mode elicitations: pages (an OAuth consent, a payment) its
// user is to open before the client retries. The 2026-07-28 revision
// forbids a server to answer with -32042: it asks for such a page with
// input_required, as for any question. So for a caller of that revision:
//
//   - an upstream's -32042 to a tools/call (execute_tool's included),
//     prompts/get or resources/read becomes an input_required result with
//     one URL-mode elicitation per elicitation of the error's data (its
//     url, message and elicitationId as the upstream wrote them, but for
//     the connection's secrets), under the IDs url1, url2, ... and with a
//     request state the gateway seals, bound as every state is (caller,
//     method, upstream, name, arguments), that marks the round
//     (roundState.URLs);
//   - the retry with that state, each question answered "accept" (the user
//     went through the page), makes the request again as the caller first
//     made it: the upstream had its answer out of band, and gets no
//     answers and no state;
//   - an answer "decline" or "cancel" ends the request, the caller's
//     failure (refuse);
//   - a caller that did not declare elicitation.url gets -32021
//     (missingCapabilities), an upstream that keeps asking fails after
//     maxInputRounds rounds, and data the gateway cannot read as URL
//     elicitations is the upstream's failure (refuseUpstream).
//
// A caller of an earlier revision gets -32042 as the upstream sent it.
// Neither the URLs nor the messages are ever logged: a page's URL may
// carry a token.

// maxURLElicitations bounds the pages one -32042 may ask its caller to
// open.
const maxURLElicitations = 16

// urlQuestionID is the input request ID of the i-th (from 1) URL
// elicitation of a round.
func urlQuestionID(i int) string { return "url" + strconv.Itoa(i) }

// urlRequired returns the -32042 error an upstream answered with in err's
// tree, as the upstream sent it (not the copy redacted for logs and
// callers that answeredError finds first, whose URLs have lost their
// query), or nil.
func urlRequired(err error) *jsonrpc.Error {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) && wire.Code == mcp.CodeURLElicitationRequired {
		return wire
	}
	return nil
}

// urlAnswer is what a request's caller gets for the upstream's answer res,
// err: that answer as it is, but for a caller of the stateless revision,
// an upstream's -32042 becomes the result ask makes (of the request's
// kind) with its questions and sealed state, or a refusal (see
// urlQuestions). prev is the content of the state the request came with
// (zero for none); the connection's secrets (redact's, with those of the
// call in ctx) are scrubbed from the text the caller gets.
func urlAnswer[R any](ctx context.Context, x *inputExchange, prev roundState, redact *redactor, res R, err error, ask func(mcp.InputRequestMap, string) R) (R, error) {
	wire := urlRequired(err)
	if wire == nil || !x.stateless {
		return res, err
	}
	reqs, state, err := x.urlQuestions(wire, prev, redact.forCall(ctx).scrubSecrets)
	if err != nil {
		var zero R
		return zero, err
	}
	return ask(reqs, state), nil
}

// urlQuestions makes the questions and the sealed request state of a
// round of URL elicitations for the upstream's -32042 error wire. It
// refuses data that is not 1 to maxURLElicitations URL-mode elicitations
// each with a url, and an upstream that asked maxInputRounds rounds for
// this request already (the upstream's failures), and a caller that lacks
// the capabilities to answer (-32021).
func (x *inputExchange) urlQuestions(wire *jsonrpc.Error, prev roundState, scrub func(string) string) (mcp.InputRequestMap, string, error) {
	elicitations, err := x.urlElicitations(wire)
	if err != nil {
		return nil, "", err
	}
	reqs := make(mcp.InputRequestMap, len(elicitations))
	for i, e := range elicitations {
		reqs[urlQuestionID(i+1)] = &mcp.ElicitParams{
			Mode: "url", URL: scrub(e.URL), Message: scrub(e.Message), ElicitationID: scrub(e.ElicitationID),
		}
	}
	if err := x.unanswerable(reqs); err != nil {
		return nil, "", err
	}
	rounds := prev.Rounds + 1
	if rounds > maxInputRounds {
		return nil, "", refuseUpstream(jsonrpc.CodeInternalError, "%s asked its client to open pages (URL elicitation) more than %d rounds", x.what(), maxInputRounds)
	}
	state := x.g.stateKey().seal(x.g.current().sessionIDPrefix, x.caller, roundState{
		Method: x.method, Domain: x.domain, Name: x.name, URLs: len(reqs), Rounds: rounds,
	}, x.args)
	return reqs, state, nil
}

// urlElicitations reads the URL elicitations of a -32042 error's data,
// refusing, as the upstream's failure and without repeating any of it,
// data that is not 1 to maxURLElicitations URL-mode elicitations each
// with a url.
func (x *inputExchange) urlElicitations(wire *jsonrpc.Error) ([]*mcp.ElicitParams, error) {
	bad := func(format string, args ...any) error {
		return refuseUpstream(jsonrpc.CodeInternalError,
			"%s answered that its user must open a page first (URL elicitation required, -32042), but %s; the gateway cannot ask its client to open it",
			x.what(), fmt.Sprintf(format, args...))
	}
	var data struct {
		Elicitations []*mcp.ElicitParams `json:"elicitations"`
	}
	if len(wire.Data) == 0 || json.Unmarshal(wire.Data, &data) != nil {
		return nil, bad(`its error's data is not {"elicitations": [...]}`)
	}
	switch n := len(data.Elicitations); {
	case n == 0:
		return nil, bad("it named no page")
	case n > maxURLElicitations:
		return nil, bad("it named %d pages, more than the %d the gateway relays", n, maxURLElicitations)
	}
	for i, e := range data.Elicitations {
		switch {
		case e == nil:
			return nil, bad("its elicitation %d is not an object", i+1)
		case e.Mode != "url":
			return nil, bad(`its elicitation %d has mode %q, not "url"`, i+1, echoed(e.Mode))
		case e.URL == "":
			return nil, bad("its elicitation %d has no url", i+1)
		}
	}
	return data.Elicitations, nil
}

// urlRetry checks the answers of a retry of request state prev and returns
// those the upstream is to get. For a round of URL elicitations
// (prev.URLs > 0), each question must be answered "accept", and the
// upstream gets none: it had them out of band. A missing answer, or one
// that declines or cancels, is refused as the caller's failure. For any
// other round, the answers go on as they are.
func (x *inputExchange) urlRetry(prev roundState, answers mcp.InputResponseMap) (mcp.InputResponseMap, error) {
	if prev.URLs == 0 {
		return answers, nil
	}
	for i := 1; i <= prev.URLs; i++ {
		id := urlQuestionID(i)
		a, ok := answers[id].(*mcp.ElicitResult)
		switch {
		case !ok:
			return nil, refuse(jsonrpc.CodeInvalidParams,
				"inputResponses has no answer to the URL elicitation %q that %s asked for; answer each (action \"accept\" once the user has opened its page), or send the request again without requestState and inputResponses",
				id, x.what())
		case a.Action != "accept":
			return nil, refuse(jsonrpc.CodeInvalidParams,
				"the user declined to open the page %s asked them to open (URL elicitation %q answered %q), so the request ends here; send it again without requestState and inputResponses to be asked again",
				x.what(), id, echoed(a.Action))
		}
	}
	return nil, nil
}
