package gateway

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// maxListedValues bounds the allowed values (of an enum) or the known
// names one problem lists.
const maxListedValues = 20

// maxEchoedValue bounds a value of the caller's quoted back in a problem.
const maxEchoedValue = 60

// argPath is where a value sits in a call's arguments: object keys
// (string) and array indexes (int), outermost first.
type argPath []any

func (p argPath) key(k string) argPath { return append(slices.Clip(p), k) }
func (p argPath) index(i int) argPath  { return append(slices.Clip(p), i) }

// plainKey is a key that reads unquoted after a dot.
var plainKey = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)

// String reads as a model would write the path: entities[0].name, and
// items["odd key"] for a key that is not a plain name. The root is "".
func (p argPath) String() string {
	var b strings.Builder
	for _, step := range p {
		switch s := step.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(s) + "]")
		case string:
			if !plainKey.MatchString(s) || len(s) > maxEchoedName {
				b.WriteString("[" + quoted(s) + "]")
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s)
		}
	}
	return b.String()
}

// argProblem is one thing wrong with a call's arguments, in words: where
// (path), and what. Most problems are one of two kinds that can be joined
// when a value may take one of several forms (anyOf, oneOf): "must be
// <mustBe>, got <got>", and "missing required <missing>". Others are a
// predicate of the value (text: "must have at least 1 item") or a clause
// of their own (clause: "unknown argument \"x\"").
type argProblem struct {
	path    argPath
	mustBe  string   // "an integer", `one of "a", "b"`, "null"
	got     string   // the value given, as echoed back
	missing []string // required names absent
	text    string
	clause  string
	advice  string // how to fix it, when that is not plain from the rest
	// keyword is the schema keyword the value failed ("type", "enum"...).
	keyword string
}

// String is the problem as a model reads it: "path: what is wrong".
func (p argProblem) String() string { return p.render(0) }

// render writes the problem with its path from step from on: a problem
// inside one of a value's alternative forms is written relative to the
// value.
func (p argProblem) render(from int) string {
	var what string
	switch {
	case p.mustBe != "":
		what = "must be " + p.mustBe
		if p.got != "" {
			what += ", got " + p.got
		}
	case len(p.missing) > 0:
		what = "missing required " + andList(quoteEach(p.missing))
		if len(p.path) == 0 {
			what = "missing required argument"
			if len(p.missing) > 1 {
				what += "s"
			}
			what += " " + andList(quoteEach(p.missing))
		}
	case p.clause != "":
		what = p.clause
	default:
		what = p.text
	}
	if p.advice != "" {
		what += " " + p.advice
	}
	where := argPath(nil)
	if from < len(p.path) {
		where = p.path[from:]
	}
	switch {
	case len(where) > 0:
		return where.String() + ": " + what
	case from == 0 && p.clause == "" && len(p.missing) == 0:
		return "the arguments " + what // a predicate of the whole
	}
	return what
}

// typeWords names JSON Schema types as a sentence would: "an integer",
// "a string or null".
func typeWords(schemaType any) string {
	var names []string
	switch t := schemaType.(type) {
	case string:
		names = []string{t}
	case []any:
		for _, n := range t {
			if s, ok := n.(string); ok {
				names = append(names, s)
			}
		}
	}
	words := make([]string, 0, len(names))
	for _, n := range names {
		switch n {
		case "integer", "object", "array":
			words = append(words, "an "+n)
		case "null":
			words = append(words, "null")
		default:
			words = append(words, "a "+n)
		}
	}
	return orList(words)
}

// valueWords is how a problem quotes a value the caller gave: a scalar as
// JSON (bounded), an object or array by its kind.
func valueWords(v any) string {
	switch x := v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		if len(x) == 0 {
			return "an empty array"
		}
		return "an array"
	}
	return cutShort(jsonText(v), maxEchoedValue)
}

// jsonText is v as compact JSON.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// quoted is s as a JSON string, bounded.
func quoted(s string) string { return jsonText(cutShort(s, maxEchoedValue)) }

func quoteEach(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = quoted(s)
	}
	return out
}

// andList joins items as "a", "a and b", "a, b and c".
func andList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// boundedList joins at most maxListedValues items with ", ", saying how
// many more there are.
func boundedList(items []string) string {
	if len(items) <= maxListedValues {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:maxListedValues], ", "), len(items)-maxListedValues)
}

// numberWords writes a schema's number as JSON would.
func numberWords(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return jsonText(v)
}

// typeAdvice says how to fix a value of the wrong type when the fix is a
// common one: a number or boolean sent as a string, or an object or array
// sent as a string of JSON.
func typeAdvice(schemaType any, v any) string {
	s, ok := v.(string)
	if !ok {
		return ""
	}
	want := typeWords(schemaType)
	var parsed any
	if json.Unmarshal([]byte(strings.TrimSpace(s)), &parsed) != nil {
		return ""
	}
	switch n := parsed.(type) {
	case float64:
		if strings.Contains(want, "number") || strings.Contains(want, "integer") && n == math.Trunc(n) {
			return "(write the number without quotes)"
		}
	case bool:
		if strings.Contains(want, "boolean") {
			return "(write true or false without quotes)"
		}
	case map[string]any:
		if strings.Contains(want, "object") {
			return "(pass the object itself, not a string of JSON)"
		}
	case []any:
		if strings.Contains(want, "array") {
			return "(pass the array itself, not a string of JSON)"
		}
	}
	return ""
}

// allowedValues lists an enum's values, bounded.
func allowedValues(enum []any) string {
	values := make([]string, len(enum))
	for i, v := range enum {
		values[i] = cutShort(jsonText(v), maxEchoedValue)
	}
	return boundedList(values)
}

// enumAdvice suggests the allowed string value closest to a string given.
func enumAdvice(enum []any, v any) string {
	s, ok := v.(string)
	if !ok {
		return ""
	}
	var names []string
	for _, e := range enum {
		if es, ok := e.(string); ok {
			names = append(names, es)
		}
	}
	if close := closestNames(s, names); len(close) > 0 {
		return "(did you mean " + orList(quoteEach(close)) + "?)"
	}
	return ""
}

// stringsOf returns the strings of a JSON array.
func stringsOf(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, item := range list {
		if s, ok := item.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// countWords is "1 item", "2 items".
func countWords(n any, one, many string) string {
	w := numberWords(n)
	if w == "1" {
		return w + " " + one
	}
	return w + " " + many
}
