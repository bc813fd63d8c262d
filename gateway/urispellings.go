package gateway

import (
	"net/url"
	"path"
	"slices"
	"strings"
)

// maxURIDecodings bounds how many times uriSpellings decodes a URI's
// escapes (%252e is %2e once decoded, and "." twice).
const maxURIDecodings = 3

// uriSpellings returns uri and the other spellings of it that a server
// may read as the same resource: with its dot segments removed and its
// scheme and host in lower case (RFC 3986's normal form), and the same
// with every escape decoded, as a file server decodes a whole path
// ("file:///srv/%73ecret/key", "file:///srv/public/../secret/key" and
// "file:///srv/secret/key" are one file to it). An access rule that hides
// any of them hides uri: a shown template must not open another way to
// what the rule hides.
func uriSpellings(uri string) []string {
	out := []string{uri}
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	add(normalURI(uri))
	decoded := uri
	for range maxURIDecodings {
		next, err := url.PathUnescape(decoded)
		if err != nil || next == decoded {
			break
		}
		decoded = next
		add(decoded)
		add(normalURI(decoded))
	}
	return out
}

// normalURI is uri with its scheme and host in lower case and the dot
// segments of its path removed, or uri itself if it does not parse as a
// hierarchical URI.
func normalURI(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Opaque != "" {
		return uri
	}
	u.Host = strings.ToLower(u.Host)
	if u.Path != "" {
		cleaned := path.Clean(u.Path)
		if strings.HasSuffix(u.Path, "/") && cleaned != "/" {
			cleaned += "/"
		}
		if !strings.HasPrefix(u.Path, "/") {
			cleaned = strings.TrimPrefix(cleaned, "/")
		}
		u.Path, u.RawPath = cleaned, ""
	}
	return u.String()
}

// sameResource reports whether URIs a and b may name the same resource:
// some spelling of one is a spelling of the other.
func sameResource(a, b string) bool {
	as := uriSpellings(a)
	for _, s := range uriSpellings(b) {
		if slices.Contains(as, s) {
			return true
		}
	}
	return false
}
