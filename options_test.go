package mcpgateway

import (
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
)

// TestJSONOptionsChecked: a JSON config is held to what the Caddyfile
// adapter checks of the handler's own options, so that `caddy validate`
// refuses it with the option's name instead of accepting what cannot
// work (an identity every request shares, a name the admin API cannot
// address, an allowed host no request can match).
func TestJSONOptionsChecked(t *testing.T) {
	for _, tc := range []struct {
		name, json, want string // want "" means valid
	}{
		{"valid", `{"name": "public.v1", "identity": "{http.auth.user.id}", "allowed_hosts": ["mcp.example.com", "*.example.com"]}`, ""},
		{"constant identity", `{"identity": "alice"}`, `identity takes a placeholder that names the caller`},
		{"name with a slash", `{"name": "public/v1"}`, `name "public/v1": a gateway's name is 1-64 letters`},
		{"name with a space", `{"name": "public api"}`, `a gateway's name is`},
		{"allowed host as URL", `{"allowed_hosts": ["https://mcp.example.com"]}`, `write "mcp.example.com"`},
		{"allowed host with port", `{"allowed_hosts": ["mcp.example.com:8443"]}`, `write "mcp.example.com"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h Handler
			if err := caddy.StrictUnmarshalJSON([]byte(tc.json), &h); err != nil {
				t.Fatal(err)
			}
			err := h.Validate()
			wantError(t, "", err, tc.want)
		})
	}
}

// wantError fails t unless err is nil where want is "", and otherwise an
// error whose text holds want; about names what was checked ("" for
// nothing more than the test's name).
func wantError(t *testing.T, about string, err error, want string) {
	t.Helper()
	if about != "" {
		about += ": "
	}
	switch {
	case want == "" && err != nil:
		t.Errorf("%sunexpected error: %v", about, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%serror = %v, want one containing %q", about, err, want)
	}
}
