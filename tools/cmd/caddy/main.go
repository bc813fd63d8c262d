// Command caddy is Caddy with its standard modules plus the MCP gateway
// and the rate limiter the security examples use, for machines without
// xcaddy: `go run ./cmd/caddy run --config Caddyfile`. It is what
// `xcaddy build --with github.com/caddy-mcp/mcp-gateway --with
// github.com/mholt/caddy-ratelimit` builds.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"
	_ "github.com/mholt/caddy-ratelimit"

	_ "github.com/caddy-mcp/mcp-gateway"
)

func main() {
	caddycmd.Main()
}
