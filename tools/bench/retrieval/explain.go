package main

import (
	"fmt"
	"io"
	"os/exec"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/livemcpbench"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
)

// explain writes to w why each tool of a catalog ranks where it does for
// one request: the gateway's own explanation (caddy mcp-gateway search
// --explain), over the same gateway the benchmark measures.
func explain(bins binaries, p catalogRun, request string, w io.Writer) error {
	servers, err := livemcpbench.Servers(p.toolsPath)
	if err != nil {
		return fmt.Errorf("%s: %v", p.name, err)
	}
	c, err := serveCatalog(bins, p.toolsPath, servers)
	if err != nil {
		return fmt.Errorf("%s: %v", p.name, err)
	}
	defer c.stop()
	cmd := exec.Command(bins.caddy, "mcp-gateway", "search", "--config", c.caddyfile, "--adapter", "caddyfile", "--explain", request)
	cmd.Dir = c.dir
	cmd.Env = append(cmd.Environ(), procs.CaddyEnv(c.dir)...)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		return fmt.Errorf("caddy mcp-gateway search --explain: %v\n%s", err, procs.Tail(string(stderr), 4000))
	}
	fmt.Fprintf(w, "== %s: %q\n", p.name, request)
	_, err = w.Write(out)
	return err
}
