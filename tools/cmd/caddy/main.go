// Command caddy is Caddy with its standard modules plus the MCP gateway,
// with its Chinese glossary, and the rate limiter the security examples
// use, for machines without xcaddy: `go run ./cmd/caddy run --config
// Caddyfile`. It is what `xcaddy build --with
// github.com/caddy-mcp/mcp-gateway --with
// github.com/caddy-mcp/mcp-gateway/search/cedict --with
// github.com/mholt/caddy-ratelimit` builds. The glossary is there for the
// catalogs the tests and benchmarks measure, LiveMCPBench's among them,
// whose tools include some described in Chinese.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"
	_ "github.com/mholt/caddy-ratelimit"

	_ "github.com/caddy-mcp/mcp-gateway"
	_ "github.com/caddy-mcp/mcp-gateway/search/cedict"
)

func main() {
	caddycmd.Main()
}
