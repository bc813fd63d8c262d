package mcpgateway

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/caddy-mcp/mcp-gateway/gateway"
)

// gatewayNamePattern is what a gateway's name may be: it stands in admin
// API paths (/mcp_gateway/<name>/tools/...) and in the storage key of its
// tool pins, where a '/' or a space would not survive.
var gatewayNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// checkName reports a gateway name outside gatewayNamePattern.
func checkName(name string) error {
	if name != "" && !gatewayNamePattern.MatchString(name) {
		return fmt.Errorf("name %q: a gateway's name is 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit (it stands in admin API paths and storage keys)", name)
	}
	return nil
}

// checkIdentity reports an identity that names no placeholder: it would
// be the same for every request, so every caller would share one
// identity's sessions and limits.
func checkIdentity(identity string) error {
	if identity != "" && !strings.Contains(identity, "{") {
		return fmt.Errorf("identity takes a placeholder that names the caller, e.g. {http.auth.user.id} or {http.request.header.X-Auth-User}; %q is the same for every request", identity)
	}
	return nil
}

// checkOptions reports the first problem with the handler's own options
// (those gateway.Config does not hold), in the words of the Caddyfile's
// options, which are also their JSON names. The Caddyfile adapter checks
// each as it reads it, with its line; Provision and Validate check them
// for a JSON config.
func (h *Handler) checkOptions() error {
	if err := checkName(h.Name); err != nil {
		return err
	}
	if err := checkIdentity(h.Identity); err != nil {
		return err
	}
	for _, host := range h.AllowedHosts {
		if err := gateway.ValidateAllowedHost(host); err != nil {
			return err
		}
	}
	if _, err := h.checkAccess(); err != nil {
		return err
	}
	return nil
}
