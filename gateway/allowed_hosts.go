package gateway

import (
	"fmt"
	"net"
	"strings"
)

// ValidateAllowedHost checks one AllowedHosts entry: a host name, an IP
// address or "*.example.com", as a request's Host names it without its
// port. An entry written as a URL, with a port or with a path would never
// match a request (hostAllowed ignores the request's port and compares
// the rest), so it is refused, saying what to write instead.
func ValidateAllowedHost(entry string) error {
	host := entry
	if i := strings.Index(host, "://"); i >= 0 {
		host = host[i+3:]
	}
	host, _, _ = strings.Cut(host, "/")
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	switch {
	case entry == "":
		return fmt.Errorf("allowed_hosts: an empty host name")
	case host != entry && host != strings.Trim(entry, "[]"):
		return fmt.Errorf("allowed_hosts: %q is not a host name: the port, scheme and path are not compared, so it would never match; write %q", entry, host)
	case strings.HasSuffix(entry, "."):
		return fmt.Errorf("allowed_hosts: %q ends with a dot, which requests' Host names are compared without; write %q", entry, strings.TrimSuffix(entry, "."))
	case strings.Contains(strings.TrimPrefix(entry, "*."), "*"):
		return fmt.Errorf("allowed_hosts: %q: a * may only start a name, as in *.example.com (its subdomains)", entry)
	}
	return nil
}
