package gateway

import (
	"encoding/json"
	"testing"
)

// TestArgumentsDigestComparesJSONValues: the digest a request state binds
// of a request's arguments is the same for the same JSON value however
// written (key order, whitespace, string escapes), and for absent
// arguments, null and {}; it differs for another value, for a number
// written otherwise (1 and 1.0), and under another state key; it is short.
func TestArgumentsDigestComparesJSONValues(t *testing.T) {
	k, other := newStateKey("one"), newStateKey("two")
	same := [][]string{
		{`{"a":1,"b":{"c":[1,2],"d":"x"}}`, ` { "b" : { "d":"\u0078", "c":[ 1 , 2 ] } ,
		 "a" : 1 } `},
		{``, `null`, `{}`, ` { } `},
		{`{"a":"<&>"}`, `{"a":"\u003c\u0026\u003e"}`},
		{`{"a":1,"a":2}`, `{"a":2}`},
	}
	for _, group := range same {
		for _, raw := range group[1:] {
			if got, want := k.argumentsDigest(json.RawMessage(raw)), k.argumentsDigest(json.RawMessage(group[0])); got != want {
				t.Errorf("%q and %q have digests %q and %q, want the same", group[0], raw, got, want)
			}
		}
	}
	if d := k.argumentsDigest(nil); d != "" {
		t.Errorf("no arguments have digest %q, want none", d)
	}
	differ := []string{
		`{"a":1}`, `{"a":1.0}`, `{"a":1e0}`, `{"a":"1"}`, `{"a":[1,2]}`, `{"a":[2,1]}`,
		`{"b":1}`, `{"a":1,"b":null}`, `{"a":9007199254740992}`, `{"a":9007199254740993}`,
		`[]`, `{"a":1} {"a":1}`, `{"a":`,
	}
	seen := map[string]string{}
	for _, raw := range differ {
		d := k.argumentsDigest(json.RawMessage(raw))
		if d == "" || seen[d] != "" {
			t.Errorf("%q has digest %q, the same as %q's", raw, d, seen[d])
		}
		seen[d] = raw
		if len(d) > 22 {
			t.Errorf("%q has a digest of %d characters, want at most 22", raw, len(d))
		}
		if o := other.argumentsDigest(json.RawMessage(raw)); o == d {
			t.Errorf("%q has the same digest under two keys", raw)
		}
	}
}
