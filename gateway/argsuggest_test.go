package gateway

import (
	"slices"
	"testing"
)

func TestClosestNames(t *testing.T) {
	memory := []string{"entities"}
	contact := []string{"name", "address", "contactMethod", "phone", "email"}
	users := []string{"user_id", "user_ids", "username", "limit"}
	for _, tc := range []struct {
		name  string
		known []string
		want  []string
	}{
		{"userId", users, []string{"user_id"}},
		{"UserID", users, []string{"user_id"}},
		{"user-id", users, []string{"user_id"}},
		{"userid", users, []string{"user_id"}},
		{"contact_method", contact, []string{"contactMethod"}},
		{"emial", contact, []string{"email"}},
		{"entity", memory, []string{"entities"}},
		{"args", []string{"tool_name", "arguments"}, []string{"arguments"}},
		{"toolname", []string{"tool_name", "arguments"}, []string{"tool_name"}},
		{"zzzz", contact, nil},
		{"email", contact, nil}, // a known name is not its own suggestion
	} {
		if got := closestNames(tc.name, tc.known); !slices.Equal(got, tc.want) {
			t.Errorf("closestNames(%q, %q) = %q, want %q", tc.name, tc.known, got, tc.want)
		}
	}
}
