package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// startGateway starts the catalog server for the catalog at toolsPath and
// Caddy with the gateway in front of it, and connects an MCP client. stop
// ends them all.
func startGateway(bins binaries, toolsPath string, servers []*livemcpbench.Server) (*mcp.ClientSession, func(), error) {
	dir, err := os.MkdirTemp(bins.dir, "run-")
	if err != nil {
		return nil, nil, err
	}
	var started []*procs.Process
	stop := func() {
		for i := len(started) - 1; i >= 0; i-- {
			started[i].Stop()
		}
		os.RemoveAll(dir)
	}
	fail := func(err error) (*mcp.ClientSession, func(), error) {
		stop()
		return nil, nil, err
	}
	catalogPort, err1 := procs.FreePort()
	gatewayPort, err2 := procs.FreePort()
	if err1 != nil || err2 != nil {
		return fail(fmt.Errorf("no free port: %v %v", err1, err2))
	}
	catalogAddr := fmt.Sprintf("127.0.0.1:%d", catalogPort)
	catalog, err := procs.Start(dir, nil, bins.catalogServer, "-http", catalogAddr, "-tools", toolsPath)
	if err != nil {
		return fail(err)
	}
	started = append(started, catalog)
	if err := procs.WaitPort(catalogPort, catalog, 30*time.Second); err != nil {
		return fail(err)
	}
	caddyfile := livemcpbench.Caddyfile(servers, fmt.Sprintf("127.0.0.1:%d", gatewayPort), catalogAddr, "", "")
	if err := os.WriteFile(filepath.Join(dir, "Caddyfile"), []byte(caddyfile), 0o644); err != nil {
		return fail(err)
	}
	caddy, err := procs.Start(dir, procs.CaddyEnv(dir), bins.caddy, "run", "--config", "Caddyfile", "--adapter", "caddyfile")
	if err != nil {
		return fail(err)
	}
	started = append(started, caddy)
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
	return session, func() { session.Close(); stop() }, nil
}

func waitForDomains(session *mcp.ClientSession, want int) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "discover_tools", Arguments: map[string]any{}})
		if err != nil {
			return err
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !strings.Contains(text, `"status"`) && strings.Count(text, `"tool_count"`) == want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the gateway's upstreams are not all ready after 60s: %s", procs.Tail(text, 2000))
		}
		time.Sleep(200 * time.Millisecond)
	}
}
