package gateway

import (
	"testing"
)

// TestSizeBoundsFloor: a JSON config is held to the floor the Caddyfile
// is, max_result_size and max_tool_size at least 1KB, and 1KB itself, the
// value the docs name as the floor, is accepted.
func TestSizeBoundsFloor(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string // "" means valid
	}{
		{"defaults", Config{}, ""},
		{"off", Config{MaxResultSize: -1, MaxToolSize: -1}, ""},
		{"1KB", Config{MaxResultSize: 1000, MaxToolSize: 1000}, ""},
		{"tiny result", Config{MaxResultSize: 10}, "max_result_size must be at least 1KB (1000 bytes), or negative for no limit; got 10"},
		{"tiny tool", Config{MaxToolSize: 999}, "max_tool_size must be at least 1KB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			wantError(t, "", err, tc.want)
		})
	}
}
