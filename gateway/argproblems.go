package gateway

import (
	"errors"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// maxListedProblems bounds the problems one invalid_arguments error lists;
// a model fixes those and calls again.
const maxListedProblems = 8

// maxListedHints bounds the names an error points out as unknown but
// allowed (see argChecker.hints).
const maxListedHints = 3

// argChecker finds what is wrong with a call's arguments, in words a
// model can act on. The validator (github.com/google/jsonschema-go) judges;
// it reports only the first problem it meets, as a chain of the schema
// parts it was in. The checker finds where in the arguments that is, and
// finds the other problems by asking the validator about each argument,
// each property and each array item on its own, down to the values that
// are wrong; then it translates each failure (argkeywords.go).
//
// Besides the validator's verdicts it reads two things from the schema
// itself: the required names an object lacks, and the names it has that
// the schema does not list (an error when additionalProperties is false,
// with the closest known name; a hint beside the problems otherwise, since
// the schema allows them).
type argChecker struct {
	schema   *argSchema
	problems []argProblem
	hints    []argProblem
}

// full says enough problems are listed.
func (c *argChecker) full() bool { return len(c.problems) > maxListedProblems }

func (c *argChecker) add(ps ...argProblem) { c.problems = append(c.problems, ps...) }

// check lists the problems of inst, at path in the arguments, which the
// schema part at ptr refused with err.
func (c *argChecker) check(ptr string, inst any, path argPath, err error) {
	before := len(c.problems)
	views := c.schema.views(ptr)
	if c.ownFailure(ptr, views, err) {
		// A rule of the value itself (an anyOf, an if/then, a type...)
		// failed first: the validator judges those before properties
		// and items, so this is the one place it is seen.
		c.add(c.explain(ptr, inst, path, err)...)
	}
	switch v := inst.(type) {
	case map[string]any:
		c.checkObject(views, v, path)
	case []any:
		c.checkArray(views, v, path)
	}
	if len(c.problems) == before && !c.full() {
		// Nothing found below: the problem is in a keyword of this part
		// (a type, an enum, an anyOf...), or out of the checker's sight.
		c.add(c.explain(ptr, inst, path, err)...)
	}
}

// checkObject lists an object's missing required names, its unknown
// names, and the problems of its properties.
func (c *argChecker) checkObject(views []schemaAt, obj map[string]any, path argPath) {
	keys := slices.Sorted(maps.Keys(obj))
	var missing []string
	for _, v := range views {
		for _, name := range stringsOf(v.node["required"]) {
			if _, ok := obj[name]; !ok && !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
		}
	}
	if len(missing) > 0 {
		c.add(argProblem{path: path, missing: missing})
	}
	known := knownProperties(views)
	for _, k := range keys {
		if _, ok := propertyPointer(views, k); ok {
			continue
		}
		if forbidsExtra(views) {
			c.add(unknownNameProblem(views, path, k, obj))
		} else if hint, ok := unknownNameHint(path, k, known, obj); ok {
			c.hints = append(c.hints, hint)
		}
	}
	for _, k := range keys {
		if c.full() {
			return
		}
		p, _ := propertyPointer(views, k)
		if p == "" {
			continue
		}
		err, ok := c.schema.validateAt(p, obj[k])
		if !ok {
			return
		}
		if err != nil {
			c.check(p, obj[k], path.key(k), err)
		}
	}
}

// checkArray lists the problems of an array's items.
func (c *argChecker) checkArray(views []schemaAt, arr []any, path argPath) {
	for i, item := range arr {
		if c.full() {
			return
		}
		p, ok := itemPointer(views, i)
		if !ok {
			continue
		}
		err, ok := c.schema.validateAt(p, item)
		if !ok {
			return
		}
		if err != nil {
			c.check(p, item, path.index(i), err)
		}
	}
}

// explain translates one failure of the validator: it follows the chain
// of schema parts in err down from ptr, and inst down from path with it,
// to the keyword that failed and the value it failed on.
func (c *argChecker) explain(ptr string, inst any, path argPath, err error) []argProblem {
	parts, failure := validationChain(err)
	at := ptr
	for i, p := range parts {
		if i == 0 || !strings.HasPrefix(p, "/") && p != "" {
			continue // the part at ptr; or a part known by its $id
		}
		if rel, ok := strings.CutPrefix(p, at+"/"); ok {
			var stuck string
			if inst, path, stuck = c.follow(at, pointerSegments("/"+rel), inst, path); stuck != "" {
				// The failing member is not found: say which rule of
				// the value's schema failed, and no more.
				return []argProblem{unexplained(stuck, path)}
			}
		}
		// Otherwise a $ref led to p: the same value, another part.
		at = p
	}
	return c.translate(failure, at, inst, path)
}

// ownFailure says err is about the value the part at ptr judges, not
// one of its members, and is not one that checkObject words itself (a
// missing required name or an unknown name of the part's own).
func (c *argChecker) ownFailure(ptr string, views []schemaAt, err error) bool {
	parts, failure := validationChain(err)
	at := ptr
	for i, p := range parts {
		if i == 0 || !strings.HasPrefix(p, "/") && p != "" {
			continue
		}
		if rel, ok := strings.CutPrefix(p, at+"/"); ok {
			switch pointerSegments("/" + rel)[0] {
			case "properties", "patternProperties", "additionalProperties", "items", "prefixItems":
				return false // checkObject and checkArray look there
			}
		}
		at = p
	}
	switch failedKeyword(failure.Error()) {
	case "required", "additionalProperties":
		for _, v := range views {
			if v.ptr == at {
				return false
			}
		}
	}
	return true
}

// validationChain splits a validator error into the JSON pointers of the
// schema parts it passed through, outermost first ("root" read as ""),
// and the failure of the innermost ("type: ...", "required: ...").
func validationChain(err error) (parts []string, failure error) {
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			return parts, err
		}
		head, ok := strings.CutSuffix(err.Error(), ": "+inner.Error())
		p, isLayer := strings.CutPrefix(head, "validating ")
		if !ok || !isLayer {
			return parts, err
		}
		if p == "root" {
			p = ""
		}
		parts = append(parts, p)
		err = inner
	}
}

// follow moves from a schema part at ptr to its subpart through segments
// (a child schema's keyword and name), and moves inst and path along: to
// a property for "properties/name", to the first member the subpart
// refuses for "items", "additionalProperties" and the like. For keywords
// that judge the same value (allOf, anyOf, then, ...) both stay. stuck
// names the keyword whose failing member it could not find.
func (c *argChecker) follow(ptr string, segments []string, inst any, path argPath) (_ any, _ argPath, stuck string) {
	for i := 0; i < len(segments); i++ {
		kw := segments[i]
		var name string
		if i+1 < len(segments) {
			name = segments[i+1]
		}
		parent := ptr
		switch kw {
		case "properties":
			i++
			ptr = childPointer(ptr, kw, name)
			obj, _ := inst.(map[string]any)
			v, ok := obj[name]
			if !ok {
				return inst, path, kw
			}
			inst, path = v, path.key(name)
		case "prefixItems", "items", "additionalItems":
			arr, _ := inst.([]any)
			if n, err := strconv.Atoi(name); err == nil && kw != "additionalItems" {
				i++ // a draft-07 tuple's item, or a prefix item
				ptr = childPointer(ptr, kw, name)
				if n >= len(arr) {
					return inst, path, kw
				}
				inst, path = arr[n], path.index(n)
				continue
			}
			ptr = childPointer(ptr, kw)
			from := 0
			if node := c.schema.at(parent); node != nil {
				if tuple, ok := node["items"].([]any); ok && kw == "additionalItems" {
					from = len(tuple)
				} else if prefix, ok := node["prefixItems"].([]any); ok && kw == "items" {
					from = len(prefix)
				}
			}
			n, ok := c.firstFailingItem(ptr, arr, from)
			if !ok {
				return inst, path, kw
			}
			inst, path = arr[n], path.index(n)
		case "additionalProperties", "patternProperties":
			if kw == "patternProperties" {
				i++
			}
			ptr = childPointer(ptr, kw)
			if kw == "patternProperties" {
				ptr = childPointer(ptr, name)
			}
			k, ok := c.firstFailingProperty(parent, ptr, inst)
			if !ok {
				return inst, path, kw
			}
			inst, path = inst.(map[string]any)[k], path.key(k)
		case "dependentSchemas", "dependencies", "$defs", "definitions", "allOf", "anyOf", "oneOf":
			i++
			ptr = childPointer(ptr, kw, name)
		case "not", "if", "then", "else":
			ptr = childPointer(ptr, kw)
		default:
			// unevaluatedProperties, unevaluatedItems, propertyNames,
			// contains: a member the checker does not look for.
			return inst, path, kw
		}
	}
	return inst, path, ""
}

// firstFailingItem returns the index of the first item, from index from
// on, that the part at ptr refuses.
func (c *argChecker) firstFailingItem(ptr string, arr []any, from int) (int, bool) {
	for i := from; i < len(arr); i++ {
		err, ok := c.schema.validateAt(ptr, arr[i])
		if !ok {
			return 0, false
		}
		if err != nil {
			return i, true
		}
	}
	return 0, false
}

// firstFailingProperty returns the first property of obj (in name order)
// that the object's part at objPtr sends to the part at ptr (its
// additionalProperties or one of its patternProperties) and that this
// part refuses.
func (c *argChecker) firstFailingProperty(objPtr, ptr string, inst any) (string, bool) {
	obj, _ := inst.(map[string]any)
	views := []schemaAt{{objPtr, c.schema.at(objPtr)}}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if p, ok := propertyPointer(views, k); !ok || p != ptr {
			continue
		}
		err, ok := c.schema.validateAt(ptr, obj[k])
		if !ok {
			return "", false
		}
		if err != nil {
			return k, true
		}
	}
	return "", false
}

// knownProperties are the property names the views list, sorted.
func knownProperties(views []schemaAt) []string {
	var out []string
	for _, v := range views {
		props, _ := v.node["properties"].(map[string]any)
		for name := range props {
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// propertyPointer returns the schema part that judges property k of an
// object: its entry in properties, a patternProperties entry whose
// pattern matches it, or additionalProperties when that is a schema.
// listed says the schema knows the name by one of these; ptr is "" when
// the part is the schema true, which takes anything.
func propertyPointer(views []schemaAt, k string) (ptr string, listed bool) {
	for _, v := range views {
		props, _ := v.node["properties"].(map[string]any)
		switch p := props[k].(type) {
		case map[string]any:
			return childPointer(v.ptr, "properties", k), true
		case bool:
			if p {
				return "", true
			}
			return childPointer(v.ptr, "properties", k), true
		}
	}
	for _, v := range views {
		patterns, _ := v.node["patternProperties"].(map[string]any)
		for _, pattern := range slices.Sorted(maps.Keys(patterns)) {
			if re, err := regexp.Compile(pattern); err == nil && re.MatchString(k) {
				return childPointer(v.ptr, "patternProperties", pattern), true
			}
		}
	}
	for _, v := range views {
		if _, ok := v.node["additionalProperties"].(map[string]any); ok {
			return childPointer(v.ptr, "additionalProperties"), true
		}
	}
	return "", false
}

// forbidsExtra says a view forbids properties it does not list
// (additionalProperties false).
func forbidsExtra(views []schemaAt) bool {
	for _, v := range views {
		if b, ok := v.node["additionalProperties"].(bool); ok && !b {
			return true
		}
	}
	return false
}

// itemPointer returns the schema part that judges item i of an array.
func itemPointer(views []schemaAt, i int) (string, bool) {
	for _, v := range views {
		prefix, _ := v.node["prefixItems"].([]any)
		if i < len(prefix) {
			return childPointer(v.ptr, "prefixItems", strconv.Itoa(i)), true
		}
		switch items := v.node["items"].(type) {
		case map[string]any:
			if i >= len(prefix) {
				return childPointer(v.ptr, "items"), true
			}
		case []any: // draft-07 tuple
			if i < len(items) {
				return childPointer(v.ptr, "items", strconv.Itoa(i)), true
			}
		}
	}
	return "", false
}
