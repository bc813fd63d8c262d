package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkjson "github.com/segmentio/encoding/json"
)

// Protocol revisions the edge tells apart.
const (
	// StatelessRevision is the first MCP revision without the initialize
	// handshake and sessions: each request carries its protocol version
	// and client capabilities in _meta.
	StatelessRevision = "2026-07-28"
)

// The routing headers of the stateless revision (SEP-2243): they mirror the
// JSON-RPC body so that HTTP infrastructure can route, authorise and
// rate-limit without reading it.
const (
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
	headerSessionID       = "Mcp-Session-Id"
)

// CodeHeaderMismatch is the JSON-RPC error code for a routing header that
// disagrees with the body, or a required one that is missing.
const CodeHeaderMismatch = mcp.CodeHeaderMismatch

// metaProtocolVersion is the _meta key of a request's protocol version.
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// message is what the edge reads of a POST body before the SDK does:
// enough to tell the protocol era and to check the routing headers.
type message struct {
	// read: the body is a JSON-RPC request or notification the edge could
	// read, or a batch (revisions before 2025-06-18) of such messages
	// whose requests agree in method and name, which the fields below then
	// describe. The SDK answers the others (responses, malformed bodies)
	// as the protocol says; mixed is a batch whose requests differ.
	read   bool
	mixed  bool
	id     any
	method string
	// name is what Mcp-Name mirrors: a tools/call's or prompts/get's
	// params.name, a resources/read's params.uri; named says the method
	// has one.
	name        string
	named       bool
	metaVersion string
}

// readMessage reads body as one JSON-RPC message, as the SDK will read it
// (see readAsSDK): what the routing headers are checked against, and what
// the edge fills them in from, is what the request will do.
func readMessage(body []byte) message {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	switch {
	case len(trimmed) == 0:
		return message{}
	case trimmed[0] == '[':
		return readBatchMessage(trimmed)
	case trimmed[0] != '{':
		return message{}
	}
	// The SDK decodes the envelope with params raw, then params on their
	// own: a repeated "params" counts by its last value, as there.
	var wire struct {
		ID     any             `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if readAsSDK(trimmed, &wire) != nil || wire.Method == "" {
		return message{}
	}
	m := message{read: true, id: wire.ID, method: wire.Method}
	if len(wire.Params) == 0 {
		return m
	}
	var meta struct {
		Meta struct {
			ProtocolVersion any `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	if readAsSDK(wire.Params, &meta) == nil {
		m.metaVersion, _ = meta.Meta.ProtocolVersion.(string)
	}
	if field := nameField(wire.Method); field != "" {
		m.name, m.named = readName(wire.Params, field), true
	}
	return m
}

// readName reads params' field (the one Mcp-Name mirrors) as the SDK reads
// the method's params: on their own, so that another field, one the
// method does not have and the SDK ignores (a numeric "uri" in a
// tools/call), cannot stop the edge from reading the name. A name that
// cannot be read reads as "", which no Mcp-Name header matches (the SDK
// refuses such a request in any case).
func readName(params json.RawMessage, field string) string {
	if field == "uri" {
		var p struct {
			URI string `json:"uri"`
		}
		if readAsSDK(params, &p) != nil {
			return ""
		}
		return p.URI
	}
	var p struct {
		Name string `json:"name"`
	}
	if readAsSDK(params, &p) != nil {
		return ""
	}
	return p.Name
}

// readBatchMessage reads a JSON-RPC batch. The routing headers, and the
// matchers, policies and limits that read them, describe one method and
// one name: a batch whose requests all have the same ones is described
// by them as a single request is; one whose requests differ is mixed.
// Notifications in a batch run no tool, and do not count.
func readBatchMessage(body []byte) message {
	var elements []json.RawMessage
	if readAsSDK(body, &elements) != nil {
		return message{}
	}
	var batch message
	for _, e := range elements {
		if e = bytes.TrimLeft(e, " \t\r\n"); len(e) == 0 || e[0] != '{' {
			continue // not a message (a batch holds no batches)
		}
		m := readMessage(e)
		switch {
		case !m.read || m.id == nil:
			continue
		case !batch.read:
			batch = m
			batch.id = nil // an error about the batch answers no one request
		case m.method != batch.method || m.name != batch.name:
			batch.mixed = true
		}
	}
	return batch
}

// readAsSDK decodes data into v the way the MCP SDK decodes messages: the
// same decoder, matching keys exactly ("Name" is not "name"), a repeated
// key's last value winning. encoding/json matches keys regardless of case,
// so a body with both "name" and "Name" would read one way here and run
// another way there.
func readAsSDK(data []byte, v any) error {
	_, err := sdkjson.Parse(data, v, sdkjson.DontMatchCaseInsensitiveStructFields)
	return err
}

// stateless reports whether a request speaks the stateless revision (or a
// later one): by its _meta, its version header, or server/discover, which
// only that revision has.
func (m message) stateless(h http.Header) bool {
	return m.method == "server/discover" || m.metaVersion >= StatelessRevision || h.Get(headerProtocolVersion) >= StatelessRevision
}

// checkRoutingHeaders checks the routing headers against the body, as the
// stateless revision requires of its requests: Mcp-Protocol-Version equal
// to the _meta version, Mcp-Method to the method and, for tools/call,
// prompts/get and resources/read, Mcp-Name to the name or URI; each is
// required. Requests of earlier revisions need none of them, but any they
// carry must agree with the body too, so that whatever routed on a header
// routed on the truth. It returns what is wrong, or "".
func checkRoutingHeaders(m message, h http.Header) string {
	// A header given twice reads as its first value here, and as all its
	// values elsewhere (Caddy's header matcher matches any; its
	// placeholder joins them): it could agree with the body here and name
	// something else there.
	for _, name := range []string{headerProtocolVersion, headerMethod, headerName} {
		if n := len(h.Values(name)); n > 1 {
			return fmt.Sprintf("the %s header is given %d times: a routing header must be given once", name, n)
		}
	}
	if m.mixed {
		return "a JSON-RPC batch whose requests differ in method or name is not accepted here: the routing headers, and what routes, authorises or limits on them, describe one; send the requests one per HTTP request"
	}
	if !m.read {
		return ""
	}
	required := h.Get(headerProtocolVersion) >= StatelessRevision
	if m.metaVersion != "" {
		switch v := h.Get(headerProtocolVersion); {
		case v == "" && m.metaVersion >= StatelessRevision:
			return fmt.Sprintf("the %s header is required: it must repeat the request's _meta %q (%q)", headerProtocolVersion, metaProtocolVersion, m.metaVersion)
		case v != "" && v != m.metaVersion:
			return fmt.Sprintf("the %s header %q does not match the request's _meta %q (%q)", headerProtocolVersion, v, metaProtocolVersion, m.metaVersion)
		}
	}
	switch v := h.Get(headerMethod); {
	case v == "" && required:
		return fmt.Sprintf("the %s header is required: it must repeat the request's method (%q)", headerMethod, m.method)
	case v != "" && v != m.method:
		return fmt.Sprintf("the %s header %q does not match the request's method %q", headerMethod, v, m.method)
	}
	v := h.Get(headerName)
	name, decoded := decodeHeaderValue(v)
	switch {
	case !m.named && v != "":
		return fmt.Sprintf("the %s header %q names nothing in a %s request: it is for tools/call, prompts/get and resources/read only", headerName, v, m.method)
	case !m.named:
	case v == "" && required:
		return fmt.Sprintf("the %s header is required for %s: it must repeat the request's %s (%q)", headerName, m.method, nameField(m.method), m.name)
	case !decoded:
		return fmt.Sprintf("the %s header %q is not valid Base64 in its =?base64?...?= form", headerName, v)
	case v != "" && name != m.name:
		return fmt.Sprintf("the %s header %q does not match the request's %s %q", headerName, v, nameField(m.method), m.name)
	}
	return ""
}

// nameField is the params field Mcp-Name mirrors for method, or "" for a
// method without one.
func nameField(method string) string {
	switch method {
	case "tools/call", "prompts/get":
		return "name"
	case "resources/read":
		return "uri"
	}
	return ""
}

// fillRoutingHeaders sets the routing headers a request of an earlier
// revision did not send, from its body (already checked to agree with any
// it did send), so that the embedding server's matchers (an access policy
// for tools/call, say) see the same headers in both eras. An Mcp-Name sent
// in the Base64 form becomes the name it encodes (which the check found
// to be the body's): that is what the matchers match, and what the SDK,
// which compares the header with the body as it is, accepts.
func fillRoutingHeaders(m message, h http.Header) {
	if !m.read {
		return
	}
	if h.Get(headerMethod) == "" {
		h.Set(headerMethod, m.method)
	}
	if m.named && m.name != "" && h.Get(headerName) != m.name {
		h.Set(headerName, m.name)
	}
}

// writeJSONRPCError answers a request the edge refuses with a JSON-RPC
// error, with the request's ID when the edge could read it.
func writeJSONRPCError(w http.ResponseWriter, status int, id any, code int64, msg string) {
	rid, err := jsonrpc.MakeID(id)
	if err != nil {
		rid = jsonrpc.ID{}
	}
	body, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: rid, Error: &jsonrpc.Error{Code: code, Message: msg}})
	if err != nil {
		http.Error(w, msg, status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "10")
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
