package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// argKind is the JSON type a meta-tool argument must have.
type argKind int

const (
	argString argKind = iota
	argObject
	argStringOrList
)

// argSpec describes one meta-tool argument.
type argSpec struct {
	name     string
	kind     argKind
	required bool
}

// decodedArgs holds a meta-tool's arguments after decodeArgs, by their
// specs' order: strings are trimmed, objects kept raw, lists of strings
// split. An argument that was absent (or null) reads as the zero value.
type decodedArgs struct {
	specs  []argSpec
	values []argValue // values[i] is specs[i]'s
}

// argValue is one decoded argument, in the field its spec's kind uses.
type argValue struct {
	str    string
	object json.RawMessage
	list   []string
}

func (a *decodedArgs) str(name string) string             { return a.value(name).str }
func (a *decodedArgs) object(name string) json.RawMessage { return a.value(name).object }
func (a *decodedArgs) list(name string) []string          { return a.value(name).list }

// value is the argument name's value; the zero value for a name no spec has.
func (a *decodedArgs) value(name string) argValue {
	if i := specIndex(a.specs, name); i >= 0 {
		return a.values[i]
	}
	return argValue{}
}

// specIndex is the position of the spec of the argument name, or -1.
func specIndex(specs []argSpec, name string) int {
	for i := range specs {
		if specs[i].name == name {
			return i
		}
	}
	return -1
}

// decodeArgs checks a meta-tool's raw arguments against its specs and says
// exactly what is wrong, in words a model can act on: not an object, an
// unknown argument (with the valid names), a wrong type, a missing
// required argument. null counts as absent.
func decodeArgs(tool string, raw json.RawMessage, specs []argSpec) (decodedArgs, error) {
	out := decodedArgs{specs: specs, values: make([]argValue, len(specs))}
	raw = bytes.TrimSpace(raw)
	var fields map[string]json.RawMessage
	if len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		if raw[0] != '{' {
			return decodedArgs{}, fmt.Errorf("%s takes a JSON object of arguments, got %s", tool, jsonKind(raw))
		}
		if err := json.Unmarshal(raw, &fields); err != nil {
			return decodedArgs{}, fmt.Errorf("%s: arguments are not valid JSON: %v", tool, err)
		}
	}
	var unknown []string
	for name := range fields {
		if specIndex(specs, name) < 0 {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		names := make([]string, len(specs))
		for i, s := range specs {
			names[i] = s.name
		}
		sort.Strings(unknown)
		return decodedArgs{}, fmt.Errorf("%s has no argument %s; its arguments are %s", tool, orList(unknownWithSuggestions(unknown, names)), strings.Join(names, ", "))
	}
	for i, s := range specs {
		v, ok := fields[s.name]
		if !ok || bytes.Equal(v, []byte("null")) {
			if s.required {
				return decodedArgs{}, fmt.Errorf("%s needs '%s'", tool, s.name)
			}
			continue
		}
		switch s.kind {
		case argString:
			var str string
			if err := json.Unmarshal(v, &str); err != nil {
				return decodedArgs{}, fmt.Errorf("%s: '%s' must be a string, got %s", tool, s.name, jsonKind(v))
			}
			out.values[i].str = strings.TrimSpace(str)
		case argObject:
			if v[0] != '{' {
				return decodedArgs{}, fmt.Errorf("%s: '%s' must be a JSON object, got %s", tool, s.name, jsonKind(v))
			}
			out.values[i].object = v
		case argStringOrList:
			var str string
			if err := json.Unmarshal(v, &str); err == nil {
				out.values[i].list = []string{strings.TrimSpace(str)}
				continue
			}
			var list []string
			if err := json.Unmarshal(v, &list); err != nil {
				return decodedArgs{}, fmt.Errorf("%s: '%s' must be a string or a list of strings, got %s", tool, s.name, jsonKind(v))
			}
			for j := range list {
				list[j] = strings.TrimSpace(list[j])
			}
			out.values[i].list = list
		}
	}
	for i, s := range specs {
		if s.required && s.kind == argString && out.values[i].str == "" {
			return decodedArgs{}, fmt.Errorf("%s needs a non-empty '%s'", tool, s.name)
		}
	}
	return out, nil
}

// unknownWithSuggestions quotes each unknown argument name, followed by
// the known names it was likely meant to be.
func unknownWithSuggestions(unknown, known []string) []string {
	out := make([]string, len(unknown))
	for i, name := range unknown {
		out[i] = "'" + echoed(name) + "'"
		if close := closestNames(name, known); len(close) > 0 {
			out[i] += " (did you mean " + orList(quoteAll(close)) + "?)"
		}
	}
	return out
}

// jsonKind names the JSON type of a raw value, for error messages.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
