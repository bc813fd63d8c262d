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

// decodedArgs holds a meta-tool's arguments after decodeArgs: strings are
// trimmed, objects kept raw, lists of strings split.
type decodedArgs struct {
	strings map[string]string
	objects map[string]json.RawMessage
	lists   map[string][]string
}

func (a *decodedArgs) str(name string) string             { return a.strings[name] }
func (a *decodedArgs) object(name string) json.RawMessage { return a.objects[name] }
func (a *decodedArgs) list(name string) []string          { return a.lists[name] }

// decodeArgs checks a meta-tool's raw arguments against its specs and says
// exactly what is wrong, in words a model can act on: not an object, an
// unknown argument (with the valid names), a wrong type, a missing
// required argument. null counts as absent.
func decodeArgs(tool string, raw json.RawMessage, specs []argSpec) (*decodedArgs, error) {
	out := &decodedArgs{strings: map[string]string{}, objects: map[string]json.RawMessage{}, lists: map[string][]string{}}
	raw = bytes.TrimSpace(raw)
	fields := map[string]json.RawMessage{}
	if len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		if raw[0] != '{' {
			return nil, fmt.Errorf("%s takes a JSON object of arguments, got %s", tool, jsonKind(raw))
		}
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, fmt.Errorf("%s: arguments are not valid JSON: %v", tool, err)
		}
	}
	known := make(map[string]argSpec, len(specs))
	names := make([]string, len(specs))
	for i, s := range specs {
		known[s.name] = s
		names[i] = s.name
	}
	var unknown []string
	for name := range fields {
		if _, ok := known[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("%s has no argument %s; its arguments are %s", tool, orList(unknownWithSuggestions(unknown, names)), strings.Join(names, ", "))
	}
	for _, s := range specs {
		v, ok := fields[s.name]
		if !ok || bytes.Equal(v, []byte("null")) {
			if s.required {
				return nil, fmt.Errorf("%s needs '%s'", tool, s.name)
			}
			continue
		}
		switch s.kind {
		case argString:
			var str string
			if err := json.Unmarshal(v, &str); err != nil {
				return nil, fmt.Errorf("%s: '%s' must be a string, got %s", tool, s.name, jsonKind(v))
			}
			out.strings[s.name] = strings.TrimSpace(str)
		case argObject:
			if v[0] != '{' {
				return nil, fmt.Errorf("%s: '%s' must be a JSON object, got %s", tool, s.name, jsonKind(v))
			}
			out.objects[s.name] = v
		case argStringOrList:
			var str string
			if err := json.Unmarshal(v, &str); err == nil {
				out.lists[s.name] = []string{strings.TrimSpace(str)}
				continue
			}
			var list []string
			if err := json.Unmarshal(v, &list); err != nil {
				return nil, fmt.Errorf("%s: '%s' must be a string or a list of strings, got %s", tool, s.name, jsonKind(v))
			}
			for i := range list {
				list[i] = strings.TrimSpace(list[i])
			}
			out.lists[s.name] = list
		}
	}
	for _, s := range specs {
		if s.required && s.kind == argString && out.strings[s.name] == "" {
			return nil, fmt.Errorf("%s needs a non-empty '%s'", tool, s.name)
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
