package gateway

import (
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Bounds on the validation work spent explaining one call's bad arguments
// (a few problems are enough for a model to act on; an upstream's schema
// and a caller's arguments can both be large).
const (
	// maxSchemaParts bounds the parts of a schema resolved on their own
	// to validate a part of the arguments.
	maxSchemaParts = 32
	// maxResolvedSchemaBytes bounds the parts further by the schema's
	// size: resolving a part resolves the whole schema again, at a cost
	// that grows with its size, so a tool with a large schema gets fewer
	// parts (a call's explanation resolves a few milliseconds' worth at
	// most).
	maxResolvedSchemaBytes = 32 << 10
	// maxPartValidations bounds the validations of parts of the
	// arguments.
	maxPartValidations = 4096
)

// validatorDialects are the $schema values the validator
// (github.com/google/jsonschema-go) validates: draft-07 and 2020-12; a
// schema without $schema is read as 2020-12. It resolves a schema of
// another dialect but then refuses every instance.
var validatorDialects = map[string]bool{
	"": true,
	"http://json-schema.org/draft-07/schema#":      true,
	"https://json-schema.org/draft-07/schema#":     true,
	"https://json-schema.org/draft/2020-12/schema": true,
}

// partsDocument is the URI under which a schema's parts are resolved:
// each part is a $ref into it (see argSchema.validateAt).
var partsDocument = url.URL{Scheme: "gateway-input-schema", Opaque: "tool"}

// argSchema is a tool's input schema as the argument checks read it: the
// validator's resolved form gives verdicts, the schema's JSON says what a
// keyword asks for, and a part of the schema, named by its JSON pointer,
// can judge a part of the arguments. Parts are resolved on demand and
// within the bounds above; an argSchema serves one call.
type argSchema struct {
	whole   *jsonschema.Resolved
	doc     map[string]any
	raw     []byte // compact JSON of the schema
	dialect string
	// copy is this call's copy of the schema, into which the parts are
	// resolved: resolving may write to it, and the tool's is shared.
	copy *jsonschema.Schema
	// draft7 says $ref hides its sibling keywords, as in draft-07.
	draft7 bool

	parts       map[string]*jsonschema.Resolved // nil: the part does not resolve
	maxParts    int
	validations int
}

// newArgSchema reads t's input schema, whose resolved form is whole, or
// returns nil if it cannot.
func newArgSchema(t *Tool, whole *jsonschema.Resolved) *argSchema {
	raw, err := json.Marshal(t.Def.InputSchema)
	if err != nil {
		return nil
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil
	}
	dialect := whole.Schema().Schema
	return &argSchema{
		whole:    whole,
		doc:      doc,
		raw:      raw,
		dialect:  dialect,
		draft7:   strings.Contains(dialect, "draft-07"),
		copy:     whole.Schema().CloneSchemas(),
		parts:    map[string]*jsonschema.Resolved{},
		maxParts: min(maxSchemaParts, maxResolvedSchemaBytes/max(len(raw), 1)),
	}
}

// validateAt judges inst against the part of the schema at ptr (a JSON
// pointer, "" for the whole). ok is false when it cannot tell: the part
// does not resolve on its own, or the bounds are spent. The error, as the
// validator's for the whole schema, is a chain of "validating <pointer>"
// around the failed keyword, starting at ptr.
func (s *argSchema) validateAt(ptr string, inst any) (_ error, ok bool) {
	if s.validations >= maxPartValidations {
		return nil, false
	}
	s.validations++
	if ptr == "" {
		return s.whole.Validate(inst), true
	}
	part, seen := s.parts[ptr]
	if !seen {
		if len(s.parts) >= s.maxParts {
			return nil, false
		}
		part = s.resolvePart(ptr)
		s.parts[ptr] = part
	}
	if part == nil {
		return nil, false
	}
	err := part.Validate(inst)
	if inner := errors.Unwrap(err); inner != nil {
		err = inner // the "validating root" of the $ref that names the part
	}
	return err, true
}

// resolvePart resolves a schema that is only a $ref to the part at ptr of
// this call's copy of the tool's schema, so that the part's own $refs (to
// $defs, or recursive ones) resolve as in the whole.
func (s *argSchema) resolvePart(ptr string) *jsonschema.Resolved {
	ref := partsDocument
	ref.Fragment = ptr
	wrapper := &jsonschema.Schema{Schema: s.dialect, Ref: ref.String()}
	part, err := wrapper.Resolve(&jsonschema.ResolveOptions{
		Loader: func(uri *url.URL) (*jsonschema.Schema, error) {
			if uri.Scheme != partsDocument.Scheme || uri.Opaque != partsDocument.Opaque {
				return nil, errors.New("no remote schemas")
			}
			return s.copy, nil
		},
	})
	if err != nil {
		return nil
	}
	return part
}

// at returns the schema object at ptr, or nil.
func (s *argSchema) at(ptr string) map[string]any {
	var cur any = s.doc
	for _, seg := range pointerSegments(ptr) {
		switch v := cur.(type) {
		case map[string]any:
			cur = v[seg]
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(v) {
				return nil
			}
			cur = v[i]
		default:
			return nil
		}
	}
	m, _ := cur.(map[string]any)
	return m
}

// isFalse says the part at ptr is the schema false, which allows nothing.
func (s *argSchema) isFalse(ptr string) bool {
	var cur any = s.doc
	for _, seg := range pointerSegments(ptr) {
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		cur = m[seg]
	}
	b, ok := cur.(bool)
	return ok && !b
}

// schemaAt is a schema object and its JSON pointer.
type schemaAt struct {
	ptr  string
	node map[string]any
}

// maxRefHops bounds how many $refs in a row views follows.
const maxRefHops = 8

// views returns the schema objects that apply to an instance the part at
// ptr judges: that part, and the parts its local $refs ("#/...") lead
// to. In draft-07 a $ref hides the keywords beside it.
func (s *argSchema) views(ptr string) []schemaAt {
	var out []schemaAt
	for range maxRefHops {
		node := s.at(ptr)
		if node == nil {
			break
		}
		ref, _ := node["$ref"].(string)
		target, local := localRef(ref)
		if !(local && s.draft7) {
			out = append(out, schemaAt{ptr, node})
		}
		if !local {
			break
		}
		ptr = target
	}
	return out
}

// localRef returns the JSON pointer of a $ref into the same document.
func localRef(ref string) (string, bool) {
	if !strings.HasPrefix(ref, "#") {
		return "", false
	}
	u, err := url.Parse(ref)
	if err != nil || (u.Fragment != "" && !strings.HasPrefix(u.Fragment, "/")) {
		return "", false // an anchor, not a pointer
	}
	return u.Fragment, true
}

// pointerSegments splits a JSON pointer into its unescaped segments.
func pointerSegments(ptr string) []string {
	if ptr == "" {
		return nil
	}
	segs := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, seg := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
	}
	return segs
}

// childPointer is ptr extended by segments, escaped.
func childPointer(ptr string, segments ...string) string {
	var b strings.Builder
	b.WriteString(ptr)
	for _, seg := range segments {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(seg, "~", "~0"), "/", "~1"))
	}
	return b.String()
}
