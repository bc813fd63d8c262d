package mcpgateway

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
)

// FuzzCaddyfile adapts arbitrary Caddyfiles seeded with the golden adapt
// files and the examples: adapting never panics, and a config that adapts
// decodes back into the handler and validates or says why not.
func FuzzCaddyfile(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/caddyfile_adapt/*.caddyfiletest")
	examples, _ := filepath.Glob("examples/*/*.Caddyfile")
	for _, file := range append(append(seeds, examples...), "Caddyfile.example") {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		caddyfile, _, _ := strings.Cut(string(data), "----------")
		f.Add(caddyfile)
	}
	if len(seeds) == 0 {
		f.Fatal("no golden adapt files to seed from")
	}
	f.Fuzz(func(t *testing.T, caddyfile string) {
		out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), nil)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an adapt error with no message")
			}
			return
		}
		for _, raw := range handlersIn(out) {
			var h Handler
			// Decoded as Caddy decodes a module: without the key that
			// names it, strictly.
			var fields map[string]json.RawMessage
			json.Unmarshal(raw, &fields)
			delete(fields, "handler")
			raw, _ = json.Marshal(fields)
			if err := caddy.StrictUnmarshalJSON(raw, &h); err != nil {
				t.Fatalf("adapted handler does not decode: %v\n%s", err, raw)
			}
			_ = h.Validate()
		}
	})
}

// handlersIn finds every mcp_gateway handler's JSON in an adapted config.
func handlersIn(config []byte) []json.RawMessage {
	var found []json.RawMessage
	var walk func(json.RawMessage)
	walk = func(raw json.RawMessage) {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) == nil {
			if string(obj["handler"]) == `"mcp_gateway"` {
				found = append(found, raw)
			}
			for _, v := range obj {
				walk(v)
			}
			return
		}
		var arr []json.RawMessage
		if json.Unmarshal(raw, &arr) == nil {
			for _, v := range arr {
				walk(v)
			}
		}
	}
	walk(config)
	return found
}
