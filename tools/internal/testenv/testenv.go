// Package testenv starts the real processes the end-to-end tests run
// against: Caddy built from cmd/caddy, the go-sdk conformance server, npm
// MCP servers and the official TypeScript SDK client. A peer that cannot be
// built, installed or started fails the test: nothing is skipped.
//
// MCP_GATEWAY_TEST_CADDY=/path/to/caddy runs the tests against that Caddy
// binary instead of one built from this checkout (see CaddyOverride).
package testenv

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RepoRoot is the directory holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	root, err := procs.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
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
	if err := procs.Build(root, pkg, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// CaddyOverride is the environment variable that names a Caddy binary for
// the tests to run instead of building cmd/caddy: for instance one built
// from an earlier commit, to see which tests fail without a fix
// (MCP_GATEWAY_TEST_CADDY=/tmp/caddy-old go test ./internal/e2e -run ...).
const CaddyOverride = "MCP_GATEWAY_TEST_CADDY"

// Caddy builds cmd/caddy: Caddy's standard modules plus the gateway; or,
// when CaddyOverride is set, returns the binary it names.
func Caddy(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv(CaddyOverride); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			t.Fatalf("%s=%s: %v", CaddyOverride, bin, err)
		}
		return bin
	}
	return Build(t, "./cmd/caddy", "caddy")
}

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
	dir := filepath.Join(RepoRoot(t), "tools", "internal", "e2e", "node")
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
	port, err := procs.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// Process is a started child process (see procs.Process).
type Process = procs.Process

// Start runs a command in its own process group; the test's cleanup ends
// the whole group and logs the output if the test failed.
func Start(t testing.TB, dir string, env []string, name string, args ...string) *Process {
	t.Helper()
	p, err := procs.Start(dir, env, name, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("output of %s:\n%s", filepath.Base(name), procs.Tail(p.Output(), 8000))
		}
	})
	return p
}

// WaitPort waits until something accepts connections on the port.
func WaitPort(t testing.TB, port int, p *Process) {
	t.Helper()
	if err := procs.WaitPort(port, p, 60*time.Second); err != nil {
		t.Fatal(err)
	}
}

// StartEverythingServer runs the go-sdk conformance server over stateful
// streamable HTTP and returns its URL.
func StartEverythingServer(t testing.TB) (string, *Process) {
	t.Helper()
	return StartEverythingServerOn(t, FreePort(t))
}

// StartEverythingServerOn is StartEverythingServer on a given port (to
// restart a server where it was).
func StartEverythingServerOn(t testing.TB, port int) (string, *Process) {
	t.Helper()
	return startEverythingServer(t, port, false)
}

// StartStatelessEverythingServer runs the go-sdk conformance server over
// stateless streamable HTTP (-stateless=true): the go-sdk serves the
// 2026-07-28 revision only so, beside the earlier ones without sessions.
// It is the server the 2026-07-28 conformance suite is measured against.
func StartStatelessEverythingServer(t testing.TB) (string, *Process) {
	t.Helper()
	return startEverythingServer(t, FreePort(t), true)
}

func startEverythingServer(t testing.TB, port int, stateless bool) (string, *Process) {
	t.Helper()
	bin := EverythingServer(t)
	p := Start(t, "", nil, bin, "-http", fmt.Sprintf("127.0.0.1:%d", port), fmt.Sprintf("-stateless=%t", stateless))
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
	c.Process = Start(t, c.Dir, procs.CaddyEnv(c.Dir), bin, "run", "--config", path, "--adapter", "caddyfile")
	WaitPort(t, c.HTTPPort, c.Process)
	return c
}

// Reload gives this Caddy a new config with `caddy reload`; caddyfile's
// placeholders are replaced as StartCaddy replaces them.
func (c *CaddyInstance) Reload(t testing.TB, caddyfile string) {
	t.Helper()
	caddyfile = strings.NewReplacer("{HTTP_PORT}", fmt.Sprint(c.HTTPPort), "{ADMIN_PORT}", fmt.Sprint(c.AdminPort)).Replace(caddyfile)
	if strings.Contains(caddyfile, "{NODE_DIR}") {
		caddyfile = strings.ReplaceAll(caddyfile, "{NODE_DIR}", NodeDir(t))
	}
	path := filepath.Join(c.Dir, "Caddyfile.reloaded")
	if err := os.WriteFile(path, []byte(caddyfile), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := RunCaddy(t, c.Dir, "reload", "--config", path, "--adapter", "caddyfile", "--address", fmt.Sprintf("127.0.0.1:%d", c.AdminPort)); err != nil {
		t.Fatalf("caddy reload: %v\n%s", err, out)
	}
}

// Caddyfile is the config this Caddy was started with.
func (c *CaddyInstance) Caddyfile(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.Dir, "Caddyfile"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
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
	cmd.Env = append(os.Environ(), procs.CaddyEnv(dir)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// EchoServer builds and starts examples/echo-server (an MCP server that
// answers with the headers it received) and returns its URL.
func EchoServer(t testing.TB) string {
	t.Helper()
	bin := Build(t, "./examples/echo-server", "echo-server")
	port := FreePort(t)
	p := Start(t, "", nil, bin, "-http", fmt.Sprintf("127.0.0.1:%d", port))
	WaitPort(t, port, p)
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

// StartCaddyFile runs a Caddyfile from the repository as it is, with env
// (GATEWAY_PORT=... and the like) for the {$VAR} placeholders it reads,
// and waits until port listens.
func StartCaddyFile(t testing.TB, path string, port int, env ...string) *CaddyInstance {
	t.Helper()
	bin := Caddy(t)
	c := &CaddyInstance{Dir: t.TempDir(), HTTPPort: port}
	c.Process = Start(t, c.Dir, append(procs.CaddyEnv(c.Dir), env...), bin, "run", "--config", filepath.Join(RepoRoot(t), path), "--adapter", "caddyfile")
	WaitPort(t, port, c.Process)
	return c
}

// SessionRevision is the newest MCP revision with the initialize handshake
// and sessions: tests of session behaviour (limits, timeouts, routing by
// session ID, reloads) connect with it, since the go-sdk client otherwise
// discovers and speaks the stateless revision.
const SessionRevision = "2025-11-25"

// SessionOptions makes a go-sdk client connect at SessionRevision.
func SessionOptions() *mcp.ClientSessionOptions {
	return &mcp.ClientSessionOptions{ProtocolVersion: SessionRevision}
}
