package gateway

import (
	"fmt"
	"testing"
)

// TestCheckAccessDomains: a glob that names a domain the gateway does not
// have, or that no qualified name can match, is reported; globs that may
// match something are not, whatever their wildcards.
func TestCheckAccessDomains(t *testing.T) {
	domains := []string{"crm", "docs"}
	for _, tc := range []struct {
		rule AccessRule
		want string // "" means valid
	}{
		{AccessRule{Allow: []string{"*", "crm.*", "CRM.people_*", "docs*", "*.resource:*", "d?cs.*", "docs.resource:file:///srv/*"}, Deny: []string{"*_delete", "crm.template:*"}}, ""},
		{AccessRule{Allow: []string{"crm.*", "cmr.*"}}, `allow "cmr.*" names domain "cmr", which is none of this gateway's upstreams (crm, docs)`},
		{AccessRule{Deny: []string{"dcos.*_delete"}}, `deny "dcos.*_delete" names domain "dcos"`},
		{AccessRule{Allow: []string{"people_search"}}, `allow "people_search" can match nothing: access globs match qualified names such as crm.people_search; write "*.people_search"`},
	} {
		err := CheckAccessDomains(tc.rule, domains)
		wantError(t, fmt.Sprint(tc.rule), err, tc.want)
	}
}
