package gateway

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// exampleNames are the names a description quotes as examples: "(e.g.,
// 'a', 'b')".
var exampleNames = regexp.MustCompile(`e\.g\., ([^)]*)\)`)

func examplesIn(description string) []string {
	var out []string
	for _, m := range exampleNames.FindAllStringSubmatch(description, -1) {
		for _, quoted := range strings.Split(m[1], ",") {
			out = append(out, strings.Trim(strings.TrimSpace(quoted), "'"))
		}
	}
	return out
}

// TestMetaToolExamplesUseGatewayNames checks that the tool names the
// meta-tools give as examples have the form the catalog gives its tools,
// domain.tool, with a domain that discover_tools' own examples name: a
// model copies the form of an example.
func TestMetaToolExamplesUseGatewayNames(t *testing.T) {
	descriptions := map[string]map[string]string{}
	for _, tool := range metaTools() {
		props := tool.InputSchema.(map[string]any)["properties"].(map[string]any)
		descriptions[tool.Name] = map[string]string{}
		for name, p := range props {
			descriptions[tool.Name][name] = p.(map[string]any)["description"].(string)
		}
	}
	domains := examplesIn(descriptions[DiscoverToolsName]["domain"])
	if len(domains) == 0 {
		t.Fatalf("discover_tools' domain gives no example: %q", descriptions[DiscoverToolsName]["domain"])
	}
	for _, tool := range []string{GetToolSchemaName, ExecuteToolName} {
		desc := descriptions[tool]["tool_name"]
		examples := examplesIn(desc)
		if len(examples) == 0 {
			t.Errorf("%s's tool_name gives no example: %q", tool, desc)
		}
		for _, ex := range examples {
			domain, name, ok := strings.Cut(ex, ".")
			if !ok || name == "" || !slices.Contains(domains, domain) {
				t.Errorf("%s's tool_name example %q is not domain.tool with a domain among %q", tool, ex, domains)
			}
			if QualifiedName(domain, name) != ex {
				t.Errorf("%s's tool_name example %q is not a qualified name", tool, ex)
			}
		}
	}
}
