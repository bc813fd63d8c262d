// Command catalog-server serves a catalog of real MCP tool definitions
// (by default LiveMCPBench's: 70 servers, 527 tools) as MCP upstreams whose
// tools answer with canned text, for benchmarks and demos of the gateway at
// a realistic size.
//
//	catalog-server -http 127.0.0.1:9200        every server at /<domain>/mcp (streamable HTTP)
//	catalog-server -stdio yahoo-finance        one server over stdio
//	catalog-server -caddyfile -http 127.0.0.1:9200 -listen :8080
//	                                           a Caddyfile for a gateway in front of them all
//	catalog-server -list                       the domains, one per line
//	catalog-server -catalogs                   the repository's catalogs and their sizes
//
// -catalog NAME serves another of the repository's catalogs (run from
// inside the repository), and -tools any tools.json in the same format.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/livemcpbench"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	var (
		httpAddr  = flag.String("http", "", "serve every server over streamable HTTP at this address, each at /<domain>/mcp")
		stdio     = flag.String("stdio", "", "serve the server of this domain over stdio")
		caddyfile = flag.Bool("caddyfile", false, "print a Caddyfile for a gateway in front of the catalog (HTTP upstreams at -http, or stdio upstreams if -http is empty)")
		listen    = flag.String("listen", "127.0.0.1:8080", "with -caddyfile: the gateway's address")
		list      = flag.Bool("list", false, "print the domains")
		toolsPath = flag.String("tools", "", "a tools.json in LiveMCPBench's format (default: the embedded catalog)")
		catalog   = flag.String("catalog", "", "serve the repository's catalog of this name (-catalogs lists them) instead of the embedded one")
		listAll   = flag.Bool("catalogs", false, "list the repository's catalogs with their sizes and task sets")
	)
	flag.Parse()
	if *listAll {
		if err := listCatalogs(os.Stdout); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *catalog != "" {
		if *toolsPath != "" {
			log.Fatal("-catalog and -tools: give one or the other")
		}
		c, err := findCatalog(*catalog)
		if err != nil {
			log.Fatal(err)
		}
		*toolsPath = c.ToolsPath()
	}
	servers, err := livemcpbench.Servers(*toolsPath)
	if err != nil {
		log.Fatal(err)
	}
	switch {
	case *list:
		for _, s := range servers {
			fmt.Println(s.Domain)
		}
	case *caddyfile:
		exe, err := os.Executable()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(livemcpbench.Caddyfile(servers, *listen, *httpAddr, exe, *toolsPath))
	case *stdio != "":
		for _, s := range servers {
			if s.Domain == *stdio {
				if err := livemcpbench.NewMCPServer(s).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
					log.Fatal(err)
				}
				return
			}
		}
		log.Fatalf("no domain %q; -list shows them", *stdio)
	case *httpAddr != "":
		log.Printf("serving %d MCP servers at http://%s/<domain>/mcp", len(servers), *httpAddr)
		log.Fatal(http.ListenAndServe(*httpAddr, livemcpbench.Handler(servers)))
	default:
		flag.Usage()
		os.Exit(2)
	}
}
