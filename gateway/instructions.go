package gateway

import (
	"strings"
)

// maxInstructionDomains bounds how many domains the instructions name;
// discover_tools lists them all.
const maxInstructionDomains = 20

// defaultInstructions is the meta-tool workflow the gateway teaches clients
// on initialize, followed by its domains.
func defaultInstructions(upstreams []*UpstreamConfig) string {
	var b strings.Builder
	b.WriteString("You have access to a tool discovery gateway with 3 tools:\n\n" +
		"1. discover_tools - Browse available tools. Call with no arguments to see domains, " +
		"with a domain to see its tools, or with a query to search.\n" +
		"2. get_tool_schema - Get a tool's parameter schema before using it.\n" +
		"3. execute_tool - Run any discovered tool.\n\n" +
		"Workflow: discover_tools → get_tool_schema → execute_tool.\n" +
		"Skip discovery for tools you've already used in this conversation.")
	if len(upstreams) == 0 {
		return b.String()
	}
	b.WriteString("\n\nDomains: ")
	for i, u := range upstreams {
		if i == maxInstructionDomains {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(u.Name)
		if u.Description != "" {
			b.WriteString(" (" + summarizeTo(u.Description, 60) + ")")
		}
	}
	b.WriteString(".")
	return b.String()
}

// summarizeTo is summarize with a tighter length bound.
func summarizeTo(s string, n int) string {
	s = summarize(s)
	if r := []rune(s); len(r) > n {
		return strings.TrimRight(string(r[:n-1]), " ,;:-") + "…"
	}
	return s
}

// passthroughInstructions tells a client in passthrough mode where the
// tools come from.
func passthroughInstructions(upstreams []*UpstreamConfig) string {
	var b strings.Builder
	b.WriteString("Tools, resources and prompts of these MCP servers")
	for i, u := range upstreams {
		if i == maxInstructionDomains {
			b.WriteString(", …")
			break
		}
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(u.Name)
		if p := u.EffectivePrefix(); p != "" {
			b.WriteString(" (names start with " + p + ")")
		}
	}
	b.WriteString(".")
	return b.String()
}
