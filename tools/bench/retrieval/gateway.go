package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/livemcpbench"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// binaries are Caddy (from cmd/caddy) and the catalog server, built once
// for every catalog.
type binaries struct {
	dir, caddy, catalogServer string
}

func buildBinaries(root string) (binaries, error) {
	dir, err := os.MkdirTemp("", "retrieval-bench-")
	if err != nil {
		return binaries{}, err
	}
	b := binaries{dir: dir, caddy: filepath.Join(dir, "caddy"), catalogServer: filepath.Join(dir, "catalog-server")}
	if err := procs.Build(root, "./cmd/caddy", b.caddy); err != nil {
		os.RemoveAll(dir)
		return binaries{}, err
	}
	if err := procs.Build(root, "./examples/catalog-server", b.catalogServer); err != nil {
		os.RemoveAll(dir)
		return binaries{}, err
	}
	return b, nil
}

// servedCatalog is the catalog server running for one catalog, and a
// Caddyfile that puts the gateway in front of it, in dir.
type servedCatalog struct {
	dir       string
	caddyfile string // its path
	gateway   int    // the port the Caddyfile's gateway listens on
	started   []*procs.Process
}

// stop ends what was started and removes dir.
func (c *servedCatalog) stop() {
	for i := len(c.started) - 1; i >= 0; i-- {
		c.started[i].Stop()
	}
	os.RemoveAll(c.dir)
}

// serveCatalog starts the catalog server for the catalog at toolsPath and
// writes the Caddyfile of a gateway in front of it.
func serveCatalog(bins binaries, toolsPath string, servers []*livemcpbench.Server) (*servedCatalog, error) {
	dir, err := os.MkdirTemp(bins.dir, "run-")
	if err != nil {
		return nil, err
	}
	c := &servedCatalog{dir: dir, caddyfile: filepath.Join(dir, "Caddyfile")}
	fail := func(err error) (*servedCatalog, error) {
		c.stop()
		return nil, err
	}
	catalogPort, err1 := procs.FreePort()
	gatewayPort, err2 := procs.FreePort()
	if err1 != nil || err2 != nil {
		return fail(fmt.Errorf("no free port: %v %v", err1, err2))
	}
	c.gateway = gatewayPort
	catalogAddr := fmt.Sprintf("127.0.0.1:%d", catalogPort)
	catalog, err := procs.Start(dir, nil, bins.catalogServer, "-http", catalogAddr, "-tools", toolsPath)
	if err != nil {
		return fail(err)
	}
	c.started = append(c.started, catalog)
	if err := procs.WaitPort(catalogPort, catalog, 30*time.Second); err != nil {
		return fail(err)
	}
	caddyfile := livemcpbench.Caddyfile(servers, fmt.Sprintf("127.0.0.1:%d", gatewayPort), catalogAddr, "", "")
	if err := os.WriteFile(c.caddyfile, []byte(caddyfile), 0o644); err != nil {
		return fail(err)
	}
	return c, nil
}

// startGateway starts the catalog server for the catalog at toolsPath and
// Caddy with the gateway in front of it, and connects an MCP client. stop
// ends them all.
func startGateway(bins binaries, toolsPath string, servers []*livemcpbench.Server) (*mcp.ClientSession, func(), error) {
	c, err := serveCatalog(bins, toolsPath, servers)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*mcp.ClientSession, func(), error) {
		c.stop()
		return nil, nil, err
	}
	caddy, err := procs.Start(c.dir, procs.CaddyEnv(c.dir), bins.caddy, "run", "--config", "Caddyfile", "--adapter", "caddyfile")
	if err != nil {
		return fail(err)
	}
	c.started = append(c.started, caddy)
	gatewayPort := c.gateway
	if err := procs.WaitPort(gatewayPort, caddy, 60*time.Second); err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "retrieval-bench"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: fmt.Sprintf("http://127.0.0.1:%d/", gatewayPort)}, nil)
	if err != nil {
		return fail(fmt.Errorf("connecting to the gateway: %v\n%s", err, procs.Tail(caddy.Output(), 4000)))
	}
	// Wait until every upstream is in the catalog.
	if err := waitForDomains(session, len(servers)); err != nil {
		session.Close()
		return fail(err)
	}
	return session, func() { session.Close(); c.stop() }, nil
}

func waitForDomains(session *mcp.ClientSession, want int) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "discover_tools", Arguments: map[string]any{}})
		if err != nil {
			return err
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if allReady(text, want) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the gateway's upstreams are not all ready after 60s: %s", procs.Tail(text, 2000))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// allReady reports whether discover_tools' overview (text) lists want
// domains, each with tools and none with a status (an upstream not ready
// yet has one). A group may be named "status": the overview is read as
// JSON, not searched for the word.
func allReady(text string, want int) bool {
	var overview struct {
		Domains []struct {
			Status    string `json:"status"`
			ToolCount int    `json:"tool_count"`
		} `json:"domains"`
	}
	if json.Unmarshal([]byte(text), &overview) != nil || len(overview.Domains) != want {
		return false
	}
	for _, d := range overview.Domains {
		if d.Status != "" || d.ToolCount == 0 {
			return false
		}
	}
	return true
}
