// Package testenv starts the real processes the end-to-end tests run
// against: Caddy built from cmd/caddy, the go-sdk conformance server, npm
// MCP servers and the official TypeScript SDK client. A peer that cannot be
// built, installed or started fails the test: nothing is skipped.
package testenv

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// RepoRoot is the directory holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}

var buildMu sync.Mutex

// Build compiles a Go package of this module (or one of its dependencies,
// like the go-sdk conformance server) into bin/test/ and returns the
// binary's path. go build is incremental, so this is cheap when up to date.
// A file lock keeps test binaries of different packages from building the
// same file at once.
func Build(t testing.TB, pkg, name string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	root := RepoRoot(t)
	dir := filepath.Join(root, "bin", "test")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	unlock := lockFile(t, filepath.Join(dir, name+".lock"))
	defer unlock()
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

// Caddy builds cmd/caddy: Caddy's standard modules plus the gateway.
func Caddy(t testing.TB) string { return Build(t, "./cmd/caddy", "caddy") }

// EverythingServer builds the go-sdk's conformance everything-server, a
// real MCP server with tools returning every content type.
func EverythingServer(t testing.TB) string {
	return Build(t, "github.com/modelcontextprotocol/go-sdk/conformance/everything-server", "everything-server")
}

// NodeDir installs the Node peers from internal/e2e/node's committed
// package-lock.json (npm ci, once per lock file change) and returns that
// directory.
func NodeDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), "internal", "e2e", "node")
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		t.Fatalf("the Node peers' lock file: %v", err)
	}
	sum := sha256.Sum256(lock)
	want := hex.EncodeToString(sum[:])
	stamp := filepath.Join(dir, "node_modules", ".installed-lock-sha256")
	unlock := lockFile(t, filepath.Join(os.TempDir(), "caddy-mcp-gateway-npm.lock"))
	defer unlock()
	if got, _ := os.ReadFile(stamp); string(got) == want {
		return dir
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Fatal("npm is needed to install the Node peers (Node.js 20+): ", err)
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", dir, err, b)
	}
	if err := os.WriteFile(stamp, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func lockFile(t testing.TB, path string) (unlock func()) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Process is a started child process whose output is kept for the log.
type Process struct {
	Cmd    *exec.Cmd
	output *syncBuffer
	done   chan struct{}
}

// Output is what the process has written so far (stdout and stderr).
func (p *Process) Output() string { return p.output.String() }

// Exited is closed when the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.done }

// Start runs a command in its own process group; the test's cleanup ends
// the whole group and logs the output if the test failed.
func Start(t testing.TB, dir string, env []string, name string, args ...string) *Process {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	p := &Process{Cmd: cmd, output: out, done: make(chan struct{})}
	go func() { cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("output of %s:\n%s", filepath.Base(name), tail(out.String(), 8000))
		}
	})
	return p
}

// Stop ends the process group: SIGTERM, then SIGKILL after 10s.
func (p *Process) Stop() {
	select {
	case <-p.done:
		return
	default:
	}
	syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

// WaitPort waits until something accepts connections on the port.
func WaitPort(t testing.TB, port int, p *Process) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			return
		}
		select {
		case <-p.done:
			t.Fatalf("%s exited before listening on %d:\n%s", p.Cmd.Path, port, tail(p.Output(), 8000))
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("nothing listens on port %d after 60s", port)
}

// StartEverythingServer runs the go-sdk conformance server over stateful
// streamable HTTP and returns its URL.
func StartEverythingServer(t testing.TB) (string, *Process) {
	t.Helper()
	bin := EverythingServer(t)
	port := FreePort(t)
	p := Start(t, "", nil, bin, "-http", fmt.Sprintf("127.0.0.1:%d", port), "-stateless=false")
	WaitPort(t, port, p)
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port), p
}

// CaddyInstance is a running Caddy process.
type CaddyInstance struct {
	*Process
	Dir       string // holds the Caddyfile and Caddy's config and data
	HTTPPort  int
	AdminPort int
}

// StartCaddy writes caddyfile to a temporary directory and runs it with
// the Caddy built from cmd/caddy. In caddyfile, {HTTP_PORT} and
// {ADMIN_PORT} are replaced with free ports, and {NODE_DIR} with the Node
// peers' directory. It returns once Caddy listens.
func StartCaddy(t testing.TB, caddyfile string) *CaddyInstance {
	t.Helper()
	bin := Caddy(t)
	c := &CaddyInstance{Dir: t.TempDir(), HTTPPort: FreePort(t), AdminPort: FreePort(t)}
	caddyfile = strings.NewReplacer(
		"{HTTP_PORT}", fmt.Sprint(c.HTTPPort),
		"{ADMIN_PORT}", fmt.Sprint(c.AdminPort),
	).Replace(caddyfile)
	if strings.Contains(caddyfile, "{NODE_DIR}") {
		caddyfile = strings.ReplaceAll(caddyfile, "{NODE_DIR}", NodeDir(t))
	}
	path := filepath.Join(c.Dir, "Caddyfile")
	if err := os.WriteFile(path, []byte(caddyfile), 0o644); err != nil {
		t.Fatal(err)
	}
	c.Process = Start(t, c.Dir, CaddyEnv(c.Dir), bin, "run", "--config", path, "--adapter", "caddyfile")
	WaitPort(t, c.HTTPPort, c.Process)
	return c
}

// CaddyEnv keeps Caddy's autosaved config and data in dir.
func CaddyEnv(dir string) []string {
	return []string{"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_DATA_HOME=" + filepath.Join(dir, "data")}
}

// URL is the gateway's address on this Caddy, for a path.
func (c *CaddyInstance) URL(path string) string {
	return fmt.Sprintf("http://127.0.0.1:%d%s", c.HTTPPort, path)
}

// RunCaddy runs a one-shot caddy subcommand (validate, adapt, ...) and
// returns its combined output and exit error.
func RunCaddy(t testing.TB, dir string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, Caddy(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), CaddyEnv(dir)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
