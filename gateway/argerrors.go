package gateway

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxInlineSchemaBytes is the longest input schema, as compact JSON, that
// an invalid_arguments error carries whole (in its "schema" field), so
// that the model can fix its call in one step. About 250 tokens: most
// tools' schemas fit (server-memory's longest is about 520 bytes). A
// longer schema would cost every failed call more context than one
// get_tool_schema call, which the error then names.
const maxInlineSchemaBytes = 1000

// invalidArguments is the body of an invalid_arguments error for a tool's
// arguments: the contract's {"error": "..."}, and the tool's input schema
// when it is short.
type invalidArguments struct {
	Error  string          `json:"error"`
	Schema json.RawMessage `json:"schema,omitempty"`
}

// checkArguments judges a call's arguments by the tool's input schema
// and returns nil when they pass, or when the gateway cannot judge them
// (no schema the validator resolves, or one of a dialect it does not
// validate: then the upstream judges alone). Otherwise it
// returns an invalid_arguments error that says, problem by problem, where
// and what is wrong (see argChecker), with the schema or the way to get
// it: a gateway error as errorResult makes them, whose JSON text has a
// "schema" beside its "error".
func checkArguments(t *Tool, arguments json.RawMessage) *mcp.CallToolResult {
	whole := t.InputSchema()
	if whole == nil || !validatorDialects[whole.Schema().Schema] {
		return nil
	}
	var v any
	if err := json.Unmarshal(arguments, &v); err != nil {
		return errorResult(ErrInvalidArguments, fmt.Sprintf("Arguments for '%s' are not valid JSON: %v", t.Name, err))
	}
	err := whole.Validate(v)
	if err == nil {
		return nil
	}
	// Only now, on the error path: read the schema for the explanation.
	schema := newArgSchema(t, whole)
	if schema == nil {
		return errorResult(ErrInvalidArguments, invalidArgumentsMessage(t, nil, nil, false))
	}
	c := &argChecker{schema: schema}
	c.check("", v, nil, err)
	inline := len(schema.raw) <= maxInlineSchemaBytes
	body := invalidArguments{Error: boundedText(invalidArgumentsMessage(t, c.problems, c.hints, inline))}
	if inline {
		body.Schema = schema.raw
	}
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: compactJSON(body)}},
		Meta:    mcp.Meta{ErrorMetaKey: string(ErrInvalidArguments)},
	}
}

// maxProblemText bounds one problem's text.
const maxProblemText = 400

// invalidArgumentsMessage is the error text: each problem (at most
// maxListedProblems), then names that look misspelled, then where the
// schema is.
func invalidArgumentsMessage(t *Tool, problems, hints []argProblem, schemaInline bool) string {
	if len(problems) == 0 {
		problems = []argProblem{unexplained("", nil)}
	}
	var lines []string
	for i, p := range problems {
		if i == maxListedProblems {
			lines = append(lines, "…and more: fix these first")
			break
		}
		lines = append(lines, cutShort(p.String(), maxProblemText))
	}
	for i, h := range hints {
		if i == maxListedHints {
			break
		}
		lines = append(lines, cutShort(h.String(), maxProblemText))
	}
	where := `Its input schema is in "schema".`
	if !schemaInline {
		where = fmt.Sprintf("Call get_tool_schema with tool_name '%s' for its input schema.", t.Name)
	}
	if len(lines) == 1 {
		return fmt.Sprintf("Invalid arguments for '%s': %s. %s", t.Name, lines[0], where)
	}
	return fmt.Sprintf("Invalid arguments for '%s':\n- %s\n%s", t.Name, strings.Join(lines, "\n- "), where)
}
