package gateway

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxListedForms bounds the alternative forms (anyOf, oneOf) one problem
// describes.
const maxListedForms = 4

// failedKeyword names the keyword a validator failure is about. The
// validator words a failure "<keyword>: <details>", except for forbidden
// additional properties and dependentRequired["name"].
func failedKeyword(msg string) string {
	switch {
	case strings.HasPrefix(msg, "unexpected additional properties"):
		return "additionalProperties"
	case strings.HasPrefix(msg, "dependentRequired["):
		return "dependentRequired"
	}
	kw, _, ok := strings.Cut(msg, ":")
	if !ok || strings.ContainsAny(kw, " \n") {
		return ""
	}
	return kw
}

// translate words the failure of a keyword of the schema part at ptr on
// inst, at path: what the keyword asks for, read from the schema, and what
// was given. A failure it does not know still reads as a sentence, naming
// the keyword.
func (c *argChecker) translate(failure error, ptr string, inst any, path argPath) []argProblem {
	msg := failure.Error()
	kw := failedKeyword(msg)
	node := c.schema.at(ptr)
	if node == nil {
		if c.schema.isFalse(ptr) {
			return []argProblem{{path: path, text: "must be left out: its schema allows no value here", keyword: kw}}
		}
		return []argProblem{unexplained(kw, path)}
	}
	p := argProblem{path: path, got: valueWords(inst), keyword: kw}
	switch kw {
	case "type":
		if node["type"] == nil {
			break
		}
		p.mustBe = typeWords(node["type"])
		p.advice = typeAdvice(node["type"], inst)
		return []argProblem{p}
	case "enum":
		enum, _ := node["enum"].([]any)
		if len(enum) == 0 {
			break
		}
		p.mustBe = "one of " + allowedValues(enum)
		if len(enum) == 1 {
			p.mustBe = allowedValues(enum)
		}
		p.advice = enumAdvice(enum, inst)
		return []argProblem{p}
	case "const":
		if _, ok := node["const"]; !ok {
			break
		}
		p.mustBe = cutShort(jsonText(node["const"]), maxEchoedValue)
		return []argProblem{p}
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		bound, ok := node[kw]
		if !ok {
			break
		}
		p.mustBe = map[string]string{
			"minimum":          "at least ",
			"maximum":          "at most ",
			"exclusiveMinimum": "greater than ",
			"exclusiveMaximum": "less than ",
			"multipleOf":       "a multiple of ",
		}[kw] + numberWords(bound)
		return []argProblem{p}
	case "minLength", "maxLength":
		bound, ok := node[kw]
		s, isString := inst.(string)
		if !ok || !isString {
			break
		}
		p.mustBe = "at least " + numberWords(bound) + " characters long"
		if kw == "maxLength" {
			p.mustBe = "at most " + numberWords(bound) + " characters long"
		}
		p.got = strconv.Itoa(utf8.RuneCountInString(s))
		return []argProblem{p}
	case "pattern":
		pattern, ok := node["pattern"].(string)
		if !ok {
			break
		}
		p.mustBe = "a string matching the pattern " + quoted(pattern)
		return []argProblem{p}
	case "minItems", "maxItems":
		arr, isArray := inst.([]any)
		if _, ok := node[kw]; !ok || !isArray {
			break
		}
		least := map[string]string{"minItems": "at least ", "maxItems": "at most "}[kw]
		p.got, p.text = "", fmt.Sprintf("must have %s%s, got %d", least, countWords(node[kw], "item", "items"), len(arr))
		return []argProblem{p}
	case "minProperties", "maxProperties":
		obj, isObject := inst.(map[string]any)
		if _, ok := node[kw]; !ok || !isObject {
			break
		}
		least := map[string]string{"minProperties": "at least ", "maxProperties": "at most "}[kw]
		p.got, p.text = "", fmt.Sprintf("must have %s%s, got %d", least, countWords(node[kw], "property", "properties"), len(obj))
		return []argProblem{p}
	case "uniqueItems":
		p.got, p.text = "", "must not repeat an item"
		return []argProblem{p}
	case "contains", "minContains", "maxContains":
		p.got, p.text = "", "must contain an item of the form its schema's \"contains\" gives"
		if n, ok := node[kw]; ok && kw != "contains" {
			least := map[string]string{"minContains": "at least ", "maxContains": "at most "}[kw]
			p.text = "must contain " + least + countWords(n, "item", "items") + " of the form its schema's \"contains\" gives"
		}
		return []argProblem{p}
	case "required":
		obj, _ := inst.(map[string]any)
		var missing []string
		for _, name := range stringsOf(node["required"]) {
			if _, ok := obj[name]; !ok {
				missing = append(missing, name)
			}
		}
		if len(missing) == 0 {
			break
		}
		return []argProblem{{path: path, missing: missing}}
	case "dependentRequired":
		if ps := dependencyProblems(node, inst, path); len(ps) > 0 {
			return ps
		}
	case "additionalProperties":
		obj, _ := inst.(map[string]any)
		views := []schemaAt{{ptr, node}}
		var out []argProblem
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if _, ok := propertyPointer(views, k); !ok {
				out = append(out, unknownNameProblem(views, path, k, obj))
			}
		}
		if len(out) > 0 {
			return out
		}
	case "anyOf", "oneOf":
		if strings.Contains(msg, "validated against both") {
			p.got, p.text = "", "must match exactly one of its allowed forms, but matches several"
			return []argProblem{p}
		}
		if alts := c.alternatives(ptr, kw, node, inst, path); len(alts) > 0 {
			return alts
		}
	case "not":
		p.got, p.text = "", "must not take the form its schema rules out (\"not\")"
		return []argProblem{p}
	}
	return []argProblem{unexplained(kw, path)}
}

// unexplained is a failure the translation cannot say more of.
func unexplained(kw string, path argPath) argProblem {
	if kw == "" {
		return argProblem{path: path, text: "must match the tool's input schema"}
	}
	return argProblem{path: path, text: fmt.Sprintf("must satisfy its schema's %q keyword", kw)}
}

// alternatives words a value that matches none of the forms an anyOf or
// oneOf allows, from the problems it has in each form: joined into one
// "must be a or b, got c" or "missing required a or b" when each form has
// one such problem of the value itself; else, leaving out the forms of
// another type than the value's, the problems in the one form left, or
// form by form.
func (c *argChecker) alternatives(ptr, kw string, node map[string]any, inst any, path argPath) []argProblem {
	forms, _ := node[kw].([]any)
	var perForm [][]argProblem
	for i := range forms {
		fp := childPointer(ptr, kw, strconv.Itoa(i))
		err, ok := c.schema.validateAt(fp, inst)
		if !ok {
			return nil
		}
		if err == nil {
			continue
		}
		sub := &argChecker{schema: c.schema}
		sub.check(fp, inst, path, err)
		perForm = append(perForm, sub.problems)
	}
	if len(perForm) == 0 {
		return nil
	}
	itself := func(ps []argProblem, keep func(argProblem) bool) bool {
		return len(ps) == 1 && len(ps[0].path) == len(path) && keep(ps[0])
	}
	all := func(keep func(argProblem) bool) bool {
		for _, ps := range perForm {
			if !itself(ps, keep) {
				return false
			}
		}
		return true
	}
	if all(func(p argProblem) bool { return p.mustBe != "" }) {
		merged := argProblem{path: path, got: perForm[0][0].got, keyword: kw}
		var mustBe []string
		for _, ps := range perForm {
			if !slices.Contains(mustBe, ps[0].mustBe) {
				mustBe = append(mustBe, ps[0].mustBe)
			}
			if merged.advice == "" {
				merged.advice = ps[0].advice
			}
		}
		merged.mustBe = orList(mustBe)
		return []argProblem{merged}
	}
	var sameType [][]argProblem
	for _, ps := range perForm {
		if !itself(ps, func(p argProblem) bool { return p.keyword == "type" }) {
			sameType = append(sameType, ps)
		}
	}
	if len(sameType) > 0 {
		perForm = sameType
	}
	if len(perForm) == 1 {
		return perForm[0]
	}
	if all(func(p argProblem) bool { return len(p.missing) > 0 }) {
		var groups []string
		or := " or "
		for _, ps := range perForm {
			groups = append(groups, andList(quoteEach(ps[0].missing)))
			if len(ps[0].missing) > 1 {
				or = ", or " // "a", or "b" and "c"
			}
		}
		what := "missing required "
		if len(path) == 0 {
			what = "missing required argument "
		}
		return []argProblem{{path: path, clause: what + strings.Join(groups, or), keyword: kw}}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "must match one of its %d allowed forms:", len(forms))
	for i, ps := range perForm {
		if i == maxListedForms {
			fmt.Fprintf(&b, " and %d more", len(perForm)-i)
			break
		}
		var texts []string
		for _, p := range ps {
			texts = append(texts, p.render(len(path)))
		}
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, " (%d) %s", i+1, strings.Join(texts, ", "))
	}
	return []argProblem{{path: path, text: b.String(), keyword: kw}}
}

// dependencyProblems words the names an object lacks because of names it
// has (dependentRequired, or draft-07 dependencies given as lists).
func dependencyProblems(node map[string]any, inst any, path argPath) []argProblem {
	obj, _ := inst.(map[string]any)
	var out []argProblem
	for _, kw := range []string{"dependentRequired", "dependencies"} {
		deps, _ := node[kw].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(deps)) {
			if _, has := obj[name]; !has {
				continue
			}
			var missing []string
			for _, need := range stringsOf(deps[name]) {
				if _, ok := obj[need]; !ok {
					missing = append(missing, need)
				}
			}
			if len(missing) > 0 {
				out = append(out, argProblem{path: path, clause: fmt.Sprintf("%s needs %s too", quoted(name), andList(quoteEach(missing)))})
			}
		}
	}
	return out
}

// unknownNameProblem words a name an object has that its schema forbids,
// with the known names it was likely meant to be (or, failing that, the
// known names and the patterns of the names it allows).
func unknownNameProblem(views []schemaAt, path argPath, name string, obj map[string]any) argProblem {
	known := knownProperties(views)
	var patterns []string
	for _, v := range views {
		p, _ := v.node["patternProperties"].(map[string]any)
		patterns = append(patterns, slices.Sorted(maps.Keys(p))...)
	}
	what := "unknown property "
	if len(path) == 0 {
		what = "unknown argument "
	}
	clause := what + quoted(name)
	var allowed []string
	if len(known) > 0 {
		allowed = append(allowed, boundedList(quoteEach(known)))
	}
	if len(patterns) > 0 {
		allowed = append(allowed, "names matching "+orList(quoteEach(patterns)))
	}
	switch absent := absentNames(closestNames(name, known), obj); {
	case len(absent) > 0:
		clause += " (did you mean " + orList(quoteEach(absent)) + "?)"
	case len(allowed) > 0:
		clause += "; known: " + strings.Join(allowed, ", and ")
	case len(path) == 0:
		clause += "; the tool takes no arguments"
	default:
		clause += "; this object takes no properties"
	}
	return argProblem{path: path, clause: clause}
}

// absentNames are the names obj does not have.
func absentNames(names []string, obj map[string]any) []string {
	var out []string
	for _, k := range names {
		if _, given := obj[k]; !given {
			out = append(out, k)
		}
	}
	return out
}

// unknownNameHint words a name an object has that its schema allows but
// does not list, when a listed name the object lacks is close to it: a
// likely misspelling the upstream would silently ignore.
func unknownNameHint(path argPath, name string, known []string, obj map[string]any) (argProblem, bool) {
	absent := absentNames(closestNames(name, known), obj)
	if len(absent) == 0 {
		return argProblem{}, false
	}
	what := " is not one of its properties"
	if len(path) == 0 {
		what = " is not one of its arguments"
	}
	return argProblem{path: path, clause: quoted(name) + what + " (did you mean " + orList(quoteEach(absent)) + "?)"}, true
}
