package gateway

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// metaClientCapabilities is the _meta key under which a request of the
// stateless revision states its client's capabilities.
const metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"

// relayableCapabilities are the client capabilities a discovery
// connection declares: sampling and elicitation (form and URL), which the
// gateway can relay from an upstream to the client that called it, and
// roots for an upstream with RelayRoots (roots), so that the catalog holds
// the tools an upstream offers only to clients that have them; each call
// then states the calling client's own (see callerCapabilities), and a
// client that lacks one an upstream asks for gets a clear error.
func relayableCapabilities(roots bool) *mcp.ClientCapabilities {
	caps := &mcp.ClientCapabilities{
		Sampling:    &mcp.SamplingCapabilities{},
		Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
	}
	if roots {
		caps.RootsV2 = &mcp.RootCapabilities{}
	}
	return caps
}

// callerCapabilities are the capabilities of the client behind a request,
// as far as the gateway relays them to an upstream: none for a client the
// gateway serves without a session of the earlier revisions (it cannot be
// asked), and roots only to an upstream with RelayRoots (relayRoots).
func callerCapabilities(caps *mcp.ClientCapabilities, canAsk, relayRoots bool) *mcp.ClientCapabilities {
	out := &mcp.ClientCapabilities{}
	if caps == nil || !canAsk {
		return out
	}
	out.Sampling = caps.Sampling
	out.Elicitation = caps.Elicitation
	if relayRoots {
		out.RootsV2 = caps.RootsV2
		if out.RootsV2 == nil && caps.Roots.ListChanged {
			out.RootsV2 = &mcp.RootCapabilities{ListChanged: true}
		}
	}
	return out
}

// declaredCapabilities reads the capabilities a request's client declared
// (read, a request's ClientCapabilities) when a question needs them. A
// request of the stateless revision carries them in its _meta, which the
// SDK decodes anew on each reading: when they name none of the
// capabilities the gateway relays (callerCapabilities), there is nothing
// to decode, and the caller declared none.
func declaredCapabilities(meta map[string]any, read func() *mcp.ClientCapabilities) func() *mcp.ClientCapabilities {
	return func() *mcp.ClientCapabilities {
		if declared, ok := meta[mcp.MetaKeyClientCapabilities].(map[string]any); ok {
			_, sampling := declared["sampling"]
			_, elicitation := declared["elicitation"]
			_, roots := declared["roots"]
			if !sampling && !elicitation && !roots {
				return nil
			}
		}
		return read()
	}
}

// declareRelayable makes a discovery connection's client declare the
// relayable capabilities. On a session of the stateless revision the
// upstream asks its questions as input_required results, which every call
// hands to its own client (mrtr.go); on a session of an earlier revision it
// asks with requests of its own on the session, which only a client's own
// upstream session (session per_client) can relay: this shared one answers
// them with an error saying so.
func declareRelayable(opts *mcp.ClientOptions, roots bool) {
	opts.Capabilities = relayableCapabilities(roots)
}

// refuseSharedQuestions is receiving middleware for a shared upstream
// session: an upstream's sampling, elicitation or roots request on it
// cannot be told apart by the client it is for, so it is refused, saying
// what can relay it. The session may serve several configs (the pool
// shares it by connection), so the message holds whatever they set.
func refuseSharedQuestions(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "sampling/createMessage", "elicitation/create":
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "caddy-mcp-gateway cannot relay " + method +
				" on the session it shares among its clients (it lists the upstream's tools on it); with `session per_client`, " +
				"each client's own session relays such requests to that client"}
		case "roots/list":
			return nil, refuseRoots()
		}
		return next(ctx, method, req)
	}
}

// refuseRoots answers an upstream's roots/list request that the gateway
// does not relay (see RelayRoots).
func refuseRoots() error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "caddy-mcp-gateway gives this upstream no client roots: " +
		"it relays a client's roots only to an upstream with `relay_roots` (and `session per_client` for one that asks on its session)"}
}

// capabilitiesMeta is caps as the stateless revision states them in a
// request's _meta (roots under "roots").
func capabilitiesMeta(caps *mcp.ClientCapabilities) map[string]any {
	m := map[string]any{}
	if caps.Sampling != nil {
		m["sampling"] = caps.Sampling
	}
	if caps.Elicitation != nil {
		m["elicitation"] = caps.Elicitation
	}
	if caps.RootsV2 != nil {
		m["roots"] = caps.RootsV2
	}
	return m
}

// missingCapability names the capability an input request needs that caps
// lacks, or "".
func missingCapability(ir mcp.InputRequest, caps *mcp.ClientCapabilities) string {
	switch p := ir.(type) {
	case *mcp.ElicitParams:
		switch {
		case caps.Elicitation == nil:
			return "elicitation"
		case p.Mode == "url" && caps.Elicitation.URL == nil:
			return "elicitation.url"
		}
	case *mcp.CreateMessageParams:
		if caps.Sampling == nil {
			return "sampling"
		}
	case *mcp.CreateMessageWithToolsParams:
		switch {
		case caps.Sampling == nil:
			return "sampling"
		case len(p.Tools) > 0 && caps.Sampling.Tools == nil:
			return "sampling.tools"
		}
	case *mcp.ListRootsParams:
		if caps.RootsV2 == nil {
			return "roots"
		}
	}
	return ""
}
