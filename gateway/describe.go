package gateway

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var getToolSchemaArgs = []argSpec{
	{name: "tool_name", kind: argStringOrList, required: true},
}

// maxSchemasPerCall bounds a batch get_tool_schema.
const maxSchemasPerCall = 20

// toolSchemaResponse is get_tool_schema's answer: the full description and
// the upstream's schemas, unchanged.
type toolSchemaResponse struct {
	Name         string               `json:"name"`
	Domain       string               `json:"domain"`
	Group        string               `json:"group,omitempty"`
	Title        string               `json:"title,omitempty"`
	Description  string               `json:"description,omitempty"`
	Parameters   any                  `json:"parameters"`
	OutputSchema any                  `json:"output_schema,omitempty"`
	Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
}

// schemasResponse answers get_tool_schema for several names at once.
type schemasResponse struct {
	Schemas []toolSchemaResponse `json:"schemas"`
	// NotFound says, for each name that did not resolve, why and what is
	// close.
	NotFound []string `json:"not_found,omitempty"`
}

// getToolSchema implements get_tool_schema. tool_name is one name, or
// several separated by commas (or a list), for several schemas at once.
func (v *view) getToolSchema(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	v = v.g.requestView(req, v)
	v.g.AwaitStartup(ctx)
	args, err := decodeArgs(GetToolSchemaName, req.Params.Arguments, getToolSchemaArgs)
	if err != nil {
		return errorResult(ErrInvalidArguments, err.Error()+". Pass the tool name from discover_tools, e.g. {\"tool_name\": \"domain.tool\"}."), nil
	}
	var names []string
	for _, item := range args.list("tool_name") {
		for _, name := range strings.Split(item, ",") {
			if name = strings.TrimSpace(name); name != "" {
				names = append(names, name)
			}
		}
	}
	if len(names) == 0 {
		return errorResult(ErrInvalidArguments, "get_tool_schema needs a non-empty 'tool_name'. Pass the tool name from discover_tools, e.g. {\"tool_name\": \"domain.tool\"}."), nil
	}
	if len(names) > maxSchemasPerCall {
		return errorResult(ErrInvalidArguments, fmt.Sprintf("get_tool_schema takes at most %d names at once; got %d", maxSchemasPerCall, len(names))), nil
	}
	c := v.Catalog()
	if len(names) == 1 {
		t, err := c.Lookup(names[0])
		if err != nil {
			return errorResult(ErrUnknownTool, err.Error()), nil
		}
		return jsonResult(describeTool(t)), nil
	}
	resp := schemasResponse{Schemas: []toolSchemaResponse{}}
	for _, name := range names {
		t, err := c.Lookup(name)
		if err != nil {
			resp.NotFound = append(resp.NotFound, err.Error())
			continue
		}
		resp.Schemas = append(resp.Schemas, describeTool(t))
	}
	if len(resp.Schemas) == 0 {
		return errorResult(ErrUnknownTool, strings.Join(resp.NotFound, " ")), nil
	}
	return jsonResult(resp), nil
}

func describeTool(t *Tool) toolSchemaResponse {
	params := t.Def.InputSchema
	if params == nil {
		params = map[string]any{"type": "object"}
	}
	return toolSchemaResponse{
		Name:         t.Name,
		Domain:       t.Domain.Name,
		Group:        t.Group,
		Title:        t.Def.Title,
		Description:  t.Description,
		Parameters:   params,
		OutputSchema: t.Def.OutputSchema,
		Annotations:  t.Def.Annotations,
	}
}
