package gateway

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrorMetaKey marks a tool result as the gateway's own error (as opposed to
// an upstream tool that returned isError). Its value is an ErrorCode.
const ErrorMetaKey = gatewayMetaPrefix + "error"

// gatewayMetaPrefix begins the _meta keys the gateway sets on its answers,
// and only it.
const gatewayMetaPrefix = "io.github.caddy-mcp/"

// ErrorCode classifies gateway errors for programs; models read the text.
type ErrorCode string

const (
	ErrInvalidArguments ErrorCode = "invalid_arguments"
	ErrUnknownTool      ErrorCode = "unknown_tool"
	ErrUnknownDomain    ErrorCode = "unknown_domain"
	ErrUnknownGroup     ErrorCode = "unknown_group"
	ErrUnavailable      ErrorCode = "unavailable"
	ErrTimeout          ErrorCode = "timeout"
	ErrBusy             ErrorCode = "busy"
	ErrUpstream         ErrorCode = "upstream_error"
)

// errorResult is a gateway error as a tool result: isError, the message as
// {"error": "..."} text for the model (bounded, see boundedText), and the
// code in _meta for programs.
func errorResult(code ErrorCode, msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: compactJSON(map[string]string{"error": boundedText(msg)})}},
		Meta:    mcp.Meta{ErrorMetaKey: string(code)},
	}
}

// jsonResult is a successful meta-tool answer: compact JSON text.
func jsonResult(v any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: compactJSON(v)}}}
}

// compactJSON encodes v without indentation or HTML escaping: every byte
// of a response is in the model's context.
func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return `{"error":"internal error encoding the response"}`
	}
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}
