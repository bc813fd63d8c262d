package gateway

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Names of the three meta-tools.
const (
	DiscoverToolsName = "discover_tools"
	GetToolSchemaName = "get_tool_schema"
	ExecuteToolName   = "execute_tool"
)

func boolPtr(b bool) *bool { return &b }

// metaTools returns the three tools a client sees in meta mode, with the
// schemas, descriptions and annotations of the meta-tool API contract.
func metaTools() []*mcp.Tool {
	return []*mcp.Tool{
		{
			Name: DiscoverToolsName,
			Description: "Browse available tools by domain, group, or keyword.\n\n" +
				"Call with no arguments to see all available domains and their tool counts.\n" +
				"Call with a domain to see groups and tools within that domain.\n" +
				"Call with a domain and group to see tools in that specific group.\n" +
				"Call with a query to search across all tools by keyword.",
			InputSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"domain": map[string]any{
						"type":        "string",
						"description": "Filter by domain (e.g., 'apollo', 'hubspot'). Omit to see all domains.",
					},
					"group": map[string]any{
						"type":        "string",
						"description": "Filter by group within a domain (e.g., 'search', 'crm'). Requires domain.",
					},
					"query": map[string]any{
						"type":        "string",
						"description": "Search tools by keyword across names and descriptions. Also: +word (required), select:a,b (by name), /regex/, limit:N, page:N.",
					},
				},
			},
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: boolPtr(false)},
		},
		{
			Name: GetToolSchemaName,
			Description: "Get the full parameter schema for a specific tool.\n\n" +
				"Call this after discover_tools to get the complete input schema before calling execute_tool. " +
				"Returns the JSON Schema that describes what arguments the tool accepts.",
			InputSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"tool_name": map[string]any{
						"type":        "string",
						"description": "The tool name as returned by discover_tools, in its domain.tool form (e.g., 'apollo.people_search'). Comma-separate names for several schemas.",
					},
				},
				"required": []string{"tool_name"},
			},
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: boolPtr(false)},
		},
		{
			Name: ExecuteToolName,
			Description: "Execute a tool by name with the given arguments.\n\n" +
				"Use discover_tools to find available tools, then get_tool_schema to see what arguments a tool accepts, then call this to execute it.",
			InputSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"tool_name": map[string]any{
						"type":        "string",
						"description": "The tool to execute, named as discover_tools lists it (e.g., 'apollo.people_search').",
					},
					"arguments": map[string]any{
						"type":        "object",
						"description": "Arguments for the tool, matching the schema from get_tool_schema.",
					},
				},
				"required": []string{"tool_name"},
			},
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false, IdempotentHint: false, OpenWorldHint: boolPtr(true)},
		},
	}
}
