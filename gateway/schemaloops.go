package gateway

import (
	"net/url"
	"strconv"
	"strings"
)

// A JSON Schema may refer to itself (a tree's children are trees), and the
// validator follows such a reference each time the instance descends into
// a property or an item, which ends with the instance. A reference that
// comes back to the same schema without the instance descending (a $ref
// to itself, or through allOf, anyOf, oneOf, not, if/then/else or
// dependentSchemas) never ends: the validator recurses until the Go
// runtime's stack limit, a fatal error that no recover catches. An
// upstream's input schema is checked for such loops before the gateway
// validates any arguments by it (see Tool.InputSchema).

// inPlaceKeywords apply their subschemas to the instance itself, not to a
// part of it (dependentSchemas and the schema form of dependencies map
// names to such subschemas); descendingKeywords apply theirs to its
// properties, items or names.
var (
	inPlaceKeywords    = []string{"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies"}
	descendingKeywords = []string{"properties", "patternProperties", "additionalProperties", "items", "prefixItems", "additionalItems",
		"contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "$defs", "definitions"}
)

// maxSchemaNodes bounds the subschemas loopsInPlace looks at: a schema
// with more is not validated by the gateway (its upstream judges alone).
const maxSchemaNodes = 20000

// loopsInPlace reports whether validating by schema (a decoded JSON
// Schema document) might not end: some subschema can come back to itself
// without the instance descending, or a reference names a schema the
// document does not hold where a JSON pointer says ($dynamicRef,
// $recursiveRef and references to other documents included, as are
// references inside a subschema with an $id of its own), or the schema
// has more than maxSchemaNodes subschemas.
func loopsInPlace(schema any) bool {
	type node struct {
		ptr string
		m   map[string]any
	}
	inPlace := map[string][]string{} // a subschema's pointer -> those it applies in place
	seen := map[string]bool{"": true}
	queue := []node{}
	if m, ok := schema.(map[string]any); ok {
		queue = append(queue, node{"", m})
	}
	add := func(ptr string, v any) {
		if m, ok := v.(map[string]any); ok && !seen[ptr] {
			seen[ptr] = true
			queue = append(queue, node{ptr, m})
		}
	}
	for len(queue) > 0 {
		if len(seen) > maxSchemaNodes {
			return true
		}
		n := queue[0]
		queue = queue[1:]
		if _, ok := n.m["$dynamicRef"]; ok {
			return true
		}
		if _, ok := n.m["$recursiveRef"]; ok {
			return true
		}
		if _, ok := n.m["$id"]; ok && n.ptr != "" {
			return true // its references resolve against its own base, not the document's
		}
		if ref, ok := n.m["$ref"]; ok {
			s, isString := ref.(string)
			if !isString {
				return true
			}
			target, ptr, found := resolvePointer(schema, s)
			if !found {
				return true
			}
			inPlace[n.ptr] = append(inPlace[n.ptr], ptr)
			add(ptr, target)
		}
		for _, k := range inPlaceKeywords {
			for ptr, sub := range subschemas(n.m[k], n.ptr+"/"+k) {
				inPlace[n.ptr] = append(inPlace[n.ptr], ptr)
				add(ptr, sub)
			}
		}
		for _, k := range descendingKeywords {
			for ptr, sub := range subschemas(n.m[k], n.ptr+"/"+k) {
				add(ptr, sub)
			}
		}
	}
	// A cycle among the in-place edges alone.
	const (
		visiting = 1
		done     = 2
	)
	state := map[string]int{}
	var cycles func(ptr string) bool
	cycles = func(ptr string) bool {
		switch state[ptr] {
		case visiting:
			return true
		case done:
			return false
		}
		state[ptr] = visiting
		for _, next := range inPlace[ptr] {
			if cycles(next) {
				return true
			}
		}
		state[ptr] = done
		return false
	}
	for ptr := range inPlace {
		if cycles(ptr) {
			return true
		}
	}
	return false
}

// subschemas are the schemas a keyword's value holds, by pointer: the
// value itself, each element of an array, or each member of an object of
// schemas (properties, $defs, dependentSchemas, ...).
func subschemas(v any, ptr string) map[string]any {
	out := map[string]any{}
	switch v := v.(type) {
	case []any:
		for i, s := range v {
			out[ptr+"/"+strconv.Itoa(i)] = s
		}
	case map[string]any:
		if isSchemaMap(ptr) {
			for name, s := range v {
				out[ptr+"/"+escapePointer(name)] = s
			}
		} else {
			out[ptr] = v
		}
	}
	return out
}

// isSchemaMap reports whether the keyword ending ptr holds an object of
// schemas by name rather than one schema.
func isSchemaMap(ptr string) bool {
	k := ptr[strings.LastIndexByte(ptr, '/')+1:]
	switch k {
	case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
		return true
	}
	return false
}

// resolvePointer finds the subschema a local reference ("#",
// "#/$defs/a", "#/properties/x/items") names in doc, and its pointer.
func resolvePointer(doc any, ref string) (any, string, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, "", false
	}
	frag, err := url.PathUnescape(frag)
	if err != nil || (frag != "" && !strings.HasPrefix(frag, "/")) {
		return nil, "", false // an anchor, or not a pointer
	}
	node := doc
	if frag == "" {
		return node, "", true
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n := node.(type) {
		case map[string]any:
			next, ok := n[tok]
			if !ok {
				return nil, "", false
			}
			node = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n) {
				return nil, "", false
			}
			node = n[i]
		default:
			return nil, "", false
		}
	}
	return node, canonicalPointer(frag), true
}

// canonicalPointer is pointer with each token escaped as escapePointer
// does, so that one subschema has one pointer however a $ref spells it.
func canonicalPointer(pointer string) string {
	var b strings.Builder
	for _, tok := range strings.Split(pointer[1:], "/") {
		b.WriteByte('/')
		b.WriteString(escapePointer(strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")))
	}
	return b.String()
}

// escapePointer escapes one JSON pointer token.
func escapePointer(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}
