package gateway

import (
	"strconv"
	"testing"
)

// TestValidateAllowedHost: an allowed_hosts entry that hostAllowed could
// never match is refused, with the entry to write instead; one it can
// match is accepted.
func TestValidateAllowedHost(t *testing.T) {
	for _, tc := range []struct {
		entry, want string // want "" means valid
	}{
		{"example.com", ""},
		{"*.example.com", ""},
		{"127.0.0.1", ""},
		{"::1", ""},
		{"[::1]", ""},
		{"https://example.com", `"https://example.com" is not a host name: the port, scheme and path are not compared, so it would never match; write "example.com"`},
		{"example.com:8443", `write "example.com"`},
		{"example.com/mcp", `write "example.com"`},
		{"[::1]:8080", `write "::1"`},
		{"example.com.", `write "example.com"`},
		{"api.*.example.com", "a * may only start a name"},
		{"", "empty host name"},
	} {
		err := ValidateAllowedHost(tc.entry)
		wantError(t, strconv.Quote(tc.entry), err, tc.want)
	}
	// What is accepted is what matches.
	for _, tc := range []struct{ entry, host string }{
		{"example.com", "example.com:443"},
		{"*.example.com", "api.example.com"},
		{"::1", "[::1]:8080"},
		{"::1", "[::1]"},
		{"[::1]", "[::1]:8080"},
		{"[::1]", "[::1]"},
	} {
		if !hostAllowed(tc.host, []string{tc.entry}) {
			t.Errorf("accepted entry %q does not match Host %q", tc.entry, tc.host)
		}
	}
}
