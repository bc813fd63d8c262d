//go:build mcpgateway_cedict

package mcpgateway

// A build with the tag mcpgateway_cedict (xcaddy:
// XCADDY_GO_BUILD_FLAGS="-ldflags='-w -s' -trimpath
// -tags=nobadger,nomysql,nopgx,mcpgateway_cedict") links the search's
// Chinese-English glossary, as importing package search/cedict does: the
// way to add it when xcaddy builds from a local checkout, where a second
// --with of the unpublished module's package cannot be resolved.
import _ "github.com/caddy-mcp/mcp-gateway/search/cedict"
