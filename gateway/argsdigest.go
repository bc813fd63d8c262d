package gateway

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
)

// argumentsDigest is what a request state binds of a request's arguments
// (see roundState.Args): a keyed digest of their canonical form (see
// canonicalArguments), or "" for no arguments. raw is the arguments as the
// client sent them: tools/call's `arguments` (execute_tool's inner
// `arguments`), or prompts/get's, encoded.
//
// The digest is an HMAC-SHA-256 with a key derived from k, cut to 128
// bits: short, since it travels in every state; keyed, since a state's
// payload is signed but not encrypted, and a plain hash of arguments with
// few possible values (a flag, a small number) would tell them to whoever
// sees the state. Without k, nobody can make two arguments that collide.
func (k stateKey) argumentsDigest(raw json.RawMessage) string {
	c := canonicalArguments(raw)
	if c == nil {
		return ""
	}
	sub := hmac.New(sha256.New, k)
	sub.Write([]byte("request state arguments"))
	m := hmac.New(sha256.New, sub.Sum(nil))
	m.Write(c)
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// canonicalArguments is the canonical form of a request's arguments, nil
// for none: two requests' arguments have the same form when they are the
// same JSON value as the gateway reads it, however written.
//
//   - Key order and whitespace do not count, nor how a string is escaped
//     ("\u0041" is "A").
//   - Absent arguments, null and {} are all "no arguments": tools/call's
//     arguments are optional, execute_tool passes absent ones on as {},
//     and a client may write either when it retries.
//   - A number is its literal as written: 1, 1.0 and 1e0 are different
//     arguments. The gateway passes arguments on as the client wrote them,
//     and a server may read those differently (a schema of type integer
//     refuses 1.0 in some validators); comparing values instead would also
//     round large ones (2^53 and 2^53+1 would be the same). A client that
//     retries with the arguments it first sent writes them the same way.
//   - Of an object's duplicate keys the last counts, as encoding/json (and
//     most JSON parsers, the upstream's likely among them) read them.
//
// Arguments that are not one JSON value (which the SDK does not let
// through) have their bytes as their form, marked so as never to equal a
// readable value's.
func canonicalArguments(raw json.RawMessage) []byte {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	unreadable := func() []byte { return append([]byte("unreadable\x00"), raw...) }
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil || d.Decode(new(any)) != io.EOF {
		return unreadable()
	}
	if m, ok := v.(map[string]any); v == nil || ok && len(m) == 0 {
		return nil
	}
	// encoding/json writes object keys sorted, no whitespace, strings
	// escaped one way, and a json.Number as its literal.
	c, err := json.Marshal(v)
	if err != nil {
		return unreadable()
	}
	return c
}
