package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
)

// env holds the processes a run starts, and stops them all.
type env struct {
	root, dir string // the repository; a scratch directory for this run
	caddyBin  string
	caddyEnv  []string // more environment for every Caddy started
	self      string   // this program, run again as an upstream

	mu    sync.Mutex
	procs []*procs.Process
}

func newEnv(caddyEnv []string) (*env, error) {
	root, err := procs.RepoRoot()
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "mcp-gateway-bench-")
	if err != nil {
		return nil, err
	}
	e := &env{root: root, dir: dir, self: self, caddyBin: filepath.Join(dir, "caddy"), caddyEnv: caddyEnv}
	if err := procs.Build(root, "./cmd/caddy", e.caddyBin); err != nil {
		return nil, err
	}
	return e, nil
}

// start runs a process that the env stops on close.
func (e *env) start(env []string, name string, args ...string) (*procs.Process, error) {
	p, err := procs.Start(e.dir, env, name, args...)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.procs = append(e.procs, p)
	e.mu.Unlock()
	return p, nil
}

// close stops every process started, and removes the scratch directory.
func (e *env) close() {
	e.mu.Lock()
	ps := e.procs
	e.procs = nil
	e.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Add(1)
		go func() { defer wg.Done(); p.Stop() }()
	}
	wg.Wait()
	os.RemoveAll(e.dir)
}

// startEchoHTTP runs the echo upstream over HTTP and returns its URL and
// its process.
func (e *env) startEchoHTTP() (string, *procs.Process, error) {
	port, err := procs.FreePort()
	if err != nil {
		return "", nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	p, err := e.start(nil, e.self, "-serve-echo-http", addr)
	if err != nil {
		return "", nil, err
	}
	if err := procs.WaitPort(port, p, 30*time.Second); err != nil {
		return "", nil, err
	}
	return "http://" + addr + "/", p, nil
}

// caddy is a running Caddy.
type caddy struct {
	*procs.Process
	port, adminPort int
}

func (c *caddy) url(path string) string { return fmt.Sprintf("http://127.0.0.1:%d%s", c.port, path) }

// startCaddy runs Caddy on site, the body of a site block; it listens on
// loopback with its admin endpoint on, and logs only errors.
func (e *env) startCaddy(name, site string) (*caddy, error) {
	port, err := procs.FreePort()
	if err != nil {
		return nil, err
	}
	adminPort, err := procs.FreePort()
	if err != nil {
		return nil, err
	}
	config := fmt.Sprintf("{\n\tadmin 127.0.0.1:%d\n\tpersist_config off\n\tlog {\n\t\tlevel ERROR\n\t}\n}\n:%d {\n\tbind 127.0.0.1\n%s\n}\n", adminPort, port, site)
	path := filepath.Join(e.dir, name+".Caddyfile")
	if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
		return nil, err
	}
	p, err := e.start(append(procs.CaddyEnv(filepath.Join(e.dir, name)), e.caddyEnv...), e.caddyBin, "run", "--config", path, "--adapter", "caddyfile")
	if err != nil {
		return nil, err
	}
	if err := procs.WaitPort(port, p, 60*time.Second); err != nil {
		return nil, fmt.Errorf("%v\n%s", err, procs.Tail(p.Output(), 4000))
	}
	return &caddy{Process: p, port: port, adminPort: adminPort}, nil
}

// gatewayBlock is an mcp_gateway block at path for upstreams (each a line
// or a block of Caddyfile), in mode.
func gatewayBlock(path, name, mode string, upstreams []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\tmcp_gateway %s* {\n\t\tname %s\n\t\tmode %s\n\t\tmax_sessions off\n", path, name, mode)
	for _, u := range upstreams {
		b.WriteString("\t\t" + strings.ReplaceAll(u, "\n", "\n\t\t") + "\n")
	}
	b.WriteString("\t}\n")
	return b.String()
}

// reverseProxyBlock is a plain Caddy reverse proxy at path (which ends in
// a slash) to the server at url, the path's prefix taken off: a request
// for path reaches the server at /.
func reverseProxyBlock(path, url string) string {
	return fmt.Sprintf("\thandle_path %s* {\n\t\treverse_proxy %s\n\t}\n", path, strings.TrimSuffix(url, "/"))
}
