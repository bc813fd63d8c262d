package mcpgateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOfflineCommandSaysWhyAHandlerDoesNotDecode: `caddy mcp-gateway`
// decodes a handler as Caddy does, strictly, and reports one that does
// not decode rather than finding no mcp_gateway handler in the config.
func TestOfflineCommandSaysWhyAHandlerDoesNotDecode(t *testing.T) {
	for want, config := range map[string]string{
		`duration "30": want a number with a unit, like "30s"`: `{"name": "crm", "url": "http://127.0.0.1:1/mcp", "timeout": "30"}`,
		`unknown field "timout"`:                               `{"name": "crm", "url": "http://127.0.0.1:1/mcp", "timout": "30s"}`,
	} {
		file := filepath.Join(t.TempDir(), "caddy.json")
		json := `{"apps": {"http": {"servers": {"s": {"listen": [":0"], "routes": [{"handle": [
			{"handler": "mcp_gateway", "upstreams": [` + config + `]}]}]}}}}}`
		if err := os.WriteFile(file, []byte(json), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, err := offlineGateway(file, "", "")
		if err == nil || !strings.Contains(err.Error(), "mcp_gateway: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("error = %v, want the handler's decoding error, %q", err, want)
		}
	}
}
