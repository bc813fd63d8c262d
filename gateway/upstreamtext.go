package gateway

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The description check applies to every text an upstream supplies that
// reaches the model: a tool's name, title, description and annotations'
// title, and every title, description and comment in its input and
// output schemas (at any depth), its schemas' property names, and the
// group names it declares in _meta (dropped when they offend: a group
// name cannot carry a warning); a
// prompt's name, title and description and its arguments'; a resource's
// and a resource template's name, title and description; the upstream's
// instructions and its title. Under DescriptionCheckFlag an offending
// text is prefixed with a warning and the item's description says so
// too; under DescriptionCheckStrip the offending sentences are removed,
// and an item whose name (which cannot be rewritten) is the offence is
// left out.

// finding says where in an item the check found instruction-like text:
// "description", "title", "input schema: properties.path.description", ...
type finding = string

// maxListedFindings bounds the findings a notice names: an upstream
// chooses how many texts it poisons, and every notice is logged.
const maxListedFindings = 10

// listFindings names findings for a notice: the first maxListedFindings,
// and how many more there are.
func listFindings(findings []finding) string {
	if len(findings) <= maxListedFindings {
		return strings.Join(findings, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(findings[:maxListedFindings], ", "), len(findings)-maxListedFindings)
}

// nameText is a name read as text: its separators as spaces.
func nameText(name string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', '.', '/', ':':
			return ' '
		}
		return r
	}, name)
}

// checkedTool is a tool definition with the description check applied:
// the definition the model may see (nil: left out) and where the check
// found instruction-like text.
type checkedTool struct {
	def      *mcp.Tool
	findings []finding
}

// checkTool applies mode to every text of def. def itself is never
// changed: a copy carries what changed.
func checkTool(def *mcp.Tool, mode string) checkedTool {
	if mode == DescriptionCheckOff {
		return checkedTool{def: def}
	}
	var findings []finding
	out := *def
	text := func(where, s string) string {
		checked, bad := checkText(s, mode)
		if bad {
			findings = append(findings, where)
		}
		return checked
	}
	nameBad := readsLikeInstructions(nameText(def.Name))
	if nameBad {
		findings = append(findings, "name")
	}
	out.Title = text("title", def.Title)
	out.Description = text("description", def.Description)
	if def.Annotations != nil && def.Annotations.Title != "" {
		a := *def.Annotations
		a.Title = text("annotations title", def.Annotations.Title)
		out.Annotations = &a
	}
	if slices.ContainsFunc(metaGroupNames(def), readsLikeInstructions) {
		// A group name cannot carry a warning: the declared groups are
		// dropped under flag and strip alike, and the tool is grouped
		// by its name.
		findings = append(findings, "group (_meta "+metaGroupsKey+")")
		out.Meta = maps.Clone(def.Meta)
		delete(out.Meta, metaGroupsKey)
	}
	var schemaBad bool
	out.InputSchema, schemaBad = checkSchema(def.InputSchema, mode, "input schema", &findings)
	nameBad = nameBad || schemaBad
	if def.OutputSchema != nil {
		out.OutputSchema, schemaBad = checkSchema(def.OutputSchema, mode, "output schema", &findings)
		nameBad = nameBad || schemaBad
	}
	if len(findings) == 0 {
		return checkedTool{def: def}
	}
	if mode == DescriptionCheckStrip && nameBad {
		return checkedTool{findings: findings}
	}
	if mode == DescriptionCheckFlag && !strings.HasPrefix(out.Description, flaggedPrefix) {
		out.Description = flaggedPrefix + out.Description
	}
	return checkedTool{def: &out, findings: findings}
}

// schemaTextKeys are the keywords of a JSON schema whose values are text
// for the reader.
var schemaTextKeys = []string{"description", "title", "$comment"}

// checkSchema applies mode to the texts of a JSON schema (any value that
// marshals to JSON) and returns the schema the model may see (a changed
// copy, or the schema itself when nothing changed), and whether a
// property name read like instructions (a name cannot be stripped).
func checkSchema(schema any, mode, where string, findings *[]finding) (any, bool) {
	if schema == nil {
		return nil, false
	}
	generic, ok := schema.(map[string]any)
	if !ok {
		b, err := json.Marshal(schema)
		if err != nil || json.Unmarshal(b, &generic) != nil {
			return schema, false
		}
	}
	nameBad := false
	before := len(*findings)
	out, changed := checkSchemaValue(generic, mode, where, "", findings, &nameBad)
	slices.Sort((*findings)[before:]) // maps are walked in no order: report in one
	if !changed {
		return schema, nameBad
	}
	return out, nameBad
}

// checkSchemaValue walks v and returns it, or a copy where a text
// changed, and whether one did.
func checkSchemaValue(v any, mode, where, path string, findings *[]finding, nameBad *bool) (any, bool) {
	switch v := v.(type) {
	case map[string]any:
		var out map[string]any
		set := func(k string, x any) {
			if out == nil {
				out = maps.Clone(v)
			}
			out[k] = x
		}
		for k, child := range v {
			if s, ok := child.(string); ok && slices.Contains(schemaTextKeys, k) {
				if checked, bad := checkText(s, mode); bad {
					*findings = append(*findings, where+": "+joinPath(path, schemaKey(k)))
					set(k, checked)
				}
				continue
			}
			if props, ok := child.(map[string]any); ok && k == "properties" {
				for name := range props {
					if readsLikeInstructions(nameText(name)) {
						*findings = append(*findings, where+": property name "+joinPath(path, "properties."+schemaKey(name)))
						*nameBad = true
					}
				}
			}
			if c, changed := checkSchemaValue(child, mode, where, joinPath(path, schemaKey(k)), findings, nameBad); changed {
				set(k, c)
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	case []any:
		var out []any
		for i, child := range v {
			if c, changed := checkSchemaValue(child, mode, where, path, findings, nameBad); changed {
				if out == nil {
					out = slices.Clone(v)
				}
				out[i] = c
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	}
	return v, false
}

func joinPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// schemaKey is a key of an upstream's schema as a finding names it: as it
// is when it is a plain name (what SEP-986 allows in a tool name), else
// quoted (quotedName), so that a finding, which notices, log messages and
// the operator page quote, never carries the upstream's line breaks,
// escapes or control characters.
func schemaKey(k string) string {
	if ValidToolName(k) {
		return k
	}
	return quotedName(k)
}

// checkPrompt applies mode to a prompt's texts and its arguments'. It
// returns nil when the prompt is left out (strip, and a name is the
// offence).
func checkPrompt(p *mcp.Prompt, mode string) (*mcp.Prompt, []finding) {
	if mode == DescriptionCheckOff {
		return p, nil
	}
	var findings []finding
	out := *p
	nameBad := readsLikeInstructions(nameText(p.Name))
	if nameBad {
		findings = append(findings, "name")
	}
	text := func(where, s string) string {
		checked, bad := checkText(s, mode)
		if bad {
			findings = append(findings, where)
		}
		return checked
	}
	out.Title = text("title", p.Title)
	out.Description = text("description", p.Description)
	if len(p.Arguments) > 0 {
		out.Arguments = make([]*mcp.PromptArgument, len(p.Arguments))
		for i, a := range p.Arguments {
			if a == nil {
				continue
			}
			c := *a
			if readsLikeInstructions(nameText(a.Name)) {
				findings = append(findings, "argument name "+quotedName(a.Name))
				nameBad = true
			}
			c.Title = text("argument "+quotedName(a.Name)+" title", a.Title)
			c.Description = text("argument "+quotedName(a.Name)+" description", a.Description)
			out.Arguments[i] = &c
		}
	}
	return finishItem(p, &out, &out.Description, nameBad, findings, mode)
}

// checkResource applies mode to a resource's texts.
func checkResource(r *mcp.Resource, mode string) (*mcp.Resource, []finding) {
	if mode == DescriptionCheckOff {
		return r, nil
	}
	out := *r
	findings, nameBad := checkNamedTexts(r.Name, &out.Title, &out.Description, mode)
	return finishItem(r, &out, &out.Description, nameBad, findings, mode)
}

// checkResourceTemplate applies mode to a resource template's texts.
func checkResourceTemplate(t *mcp.ResourceTemplate, mode string) (*mcp.ResourceTemplate, []finding) {
	if mode == DescriptionCheckOff {
		return t, nil
	}
	out := *t
	findings, nameBad := checkNamedTexts(t.Name, &out.Title, &out.Description, mode)
	return finishItem(t, &out, &out.Description, nameBad, findings, mode)
}

// checkNamedTexts checks a name, and a title and a description in place.
func checkNamedTexts(name string, title, description *string, mode string) (findings []finding, nameBad bool) {
	if readsLikeInstructions(nameText(name)) {
		findings = append(findings, "name")
		nameBad = true
	}
	var bad bool
	if *title, bad = checkText(*title, mode); bad {
		findings = append(findings, "title")
	}
	if *description, bad = checkText(*description, mode); bad {
		findings = append(findings, "description")
	}
	return findings, nameBad
}

// finishItem is the checked item: the original when nothing was found,
// nil when strip leaves it out, else the copy (flagged in its
// description under flag).
func finishItem[T any](orig, checked *T, description *string, nameBad bool, findings []finding, mode string) (*T, []finding) {
	if len(findings) == 0 {
		return orig, nil
	}
	if mode == DescriptionCheckStrip && nameBad {
		return nil, findings
	}
	if mode == DescriptionCheckFlag && !strings.HasPrefix(*description, flaggedPrefix) {
		*description = flaggedPrefix + *description
	}
	return checked, findings
}
