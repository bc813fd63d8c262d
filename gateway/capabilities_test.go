package gateway

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDeclaredCapabilitiesDecodesOnlyWhatCanMatter: a stateless request
// whose declared capabilities name nothing the gateway relays is not
// decoded; one that names sampling, elicitation or roots is, and so is an
// older client's (whose capabilities come from its session).
func TestDeclaredCapabilitiesDecodesOnlyWhatCanMatter(t *testing.T) {
	elicit := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}}
	for _, tc := range []struct {
		name     string
		meta     map[string]any
		wantRead bool
	}{
		{"none relayable", map[string]any{mcp.MetaKeyClientCapabilities: map[string]any{"experimental": map[string]any{}}}, false},
		{"empty", map[string]any{mcp.MetaKeyClientCapabilities: map[string]any{}}, false},
		{"elicitation", map[string]any{mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{}}}, true},
		{"sampling", map[string]any{mcp.MetaKeyClientCapabilities: map[string]any{"sampling": map[string]any{}}}, true},
		{"roots", map[string]any{mcp.MetaKeyClientCapabilities: map[string]any{"roots": map[string]any{}}}, true},
		{"older client, no _meta", nil, true},
	} {
		read := false
		got := declaredCapabilities(tc.meta, func() *mcp.ClientCapabilities { read = true; return elicit })()
		if read != tc.wantRead || (got == elicit) != tc.wantRead || (!tc.wantRead && got != nil) {
			t.Errorf("%s: read %v, got %+v", tc.name, read, got)
		}
	}
}
