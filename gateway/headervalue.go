package gateway

import (
	"encoding/base64"
	"strings"
)

// The Base64 sentinel of the 2026-07-28 revision's Value Encoding: a client
// carries a value that is not safe as a plain ASCII header value (non-ASCII,
// control characters, surrounding white space, or one that looks like this
// form itself) as =?base64?<standard Base64 of its UTF-8>?=.
const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// decodeHeaderValue returns the value a routing header carries: v itself,
// or what it encodes when it is in the Base64 sentinel form. ok is false
// for a value in that form that does not decode.
func decodeHeaderValue(v string) (value string, ok bool) {
	inner, found := strings.CutPrefix(v, base64Prefix)
	if !found {
		return v, true
	}
	inner, found = strings.CutSuffix(inner, base64Suffix)
	if !found {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(inner)
	if err != nil {
		return "", false
	}
	return string(b), true
}
