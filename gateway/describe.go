package gateway

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var getToolSchemaArgs = []argSpec{
	{name: "tool_name", kind: argString, required: true},
}

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

// getToolSchema implements get_tool_schema.
func (g *Gateway) getToolSchema(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	g.awaitStartup(ctx)
	args, err := decodeArgs(GetToolSchemaName, req.Params.Arguments, getToolSchemaArgs)
	if err != nil {
		return errorResult(ErrInvalidArguments, err.Error()+". Pass the tool name from discover_tools, e.g. {\"tool_name\": \"domain.tool\"}."), nil
	}
	t, err := g.Catalog().Lookup(args.str("tool_name"))
	if err != nil {
		return errorResult(ErrUnknownTool, err.Error()), nil
	}
	return jsonResult(describeTool(t)), nil
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
