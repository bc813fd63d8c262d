package gateway

import (
	"slices"
	"testing"
)

func TestURISpellings(t *testing.T) {
	for _, tc := range []struct {
		uri  string
		want []string // among its spellings
	}{
		{"file:///srv/secret/key", []string{"file:///srv/secret/key"}},
		{"file:///srv/%73ecret/key", []string{"file:///srv/secret/key"}},
		{"file:///srv/public/../secret/key", []string{"file:///srv/secret/key"}},
		{"file:///srv/./secret//key", []string{"file:///srv/secret/key"}},
		{"file:///srv/public/%2e%2e/secret/key", []string{"file:///srv/secret/key"}},
		{"file:///srv/public/%252e%252e/secret/key", []string{"file:///srv/secret/key"}},
		{"file:///srv/public%2F..%2Fsecret/key", []string{"file:///srv/secret/key"}},
		{"FILE:///srv/secret/key", []string{"file:///srv/secret/key"}},
		{"crm://SECRET/salaries", []string{"crm://secret/salaries"}},
		{"file:///srv/docs/", []string{"file:///srv/docs/"}},
		{"urn:isbn:0451450523", []string{"urn:isbn:0451450523"}},
	} {
		got := uriSpellings(tc.uri)
		if got[0] != tc.uri {
			t.Errorf("uriSpellings(%q) does not start with the URI itself: %q", tc.uri, got)
		}
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("uriSpellings(%q) = %q, want %q among them", tc.uri, got, w)
			}
		}
	}
	if sameResource("file:///srv/secret/key", "file:///srv/secret/other") || !sameResource("file:///srv/%73ecret/key", "file:///srv/public/../secret/key") {
		t.Error("sameResource tells the wrong URIs apart")
	}
}
