package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
)

// InspectorTimeout bounds one run of an Inspector CLI: one connection and
// one request to a gateway on loopback take well under a second.
const InspectorTimeout = time.Minute

// InspectorRun is one run of an MCP Inspector CLI: its arguments, what it
// printed and its exit code.
type InspectorRun struct {
	Name           string // which CLI
	Args           []string
	Stdout, Stderr string
	ExitCode       int
}

// String shows the run for a failure message.
func (r InspectorRun) String() string {
	return fmt.Sprintf("%s %s\nexit code %d\nstdout:\n%s\nstderr:\n%s", r.Name, strings.Join(r.Args, " "),
		r.ExitCode, procs.Tail(r.Stdout, 4000), procs.Tail(r.Stderr, 4000))
}

// Decode parses the run's standard output, a JSON document, into v; it
// fails the test, showing the run, if the output is not one.
func (r InspectorRun) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.Stdout), v); err != nil {
		t.Fatalf("the output is not JSON (%v):\n%s", err, r)
	}
}

// RunInspector runs the MCP Inspector's CLI as `npx
// @modelcontextprotocol/inspector --cli ARGS...` runs it: npm
// @modelcontextprotocol/inspector 2.x (its `inspector` bin, TypeScript
// SDK 2.x client), with Node 22 (it declares Node >= 22.19). The CLI
// writes its state under a home folder of the test's own.
func RunInspector(t testing.TB, args ...string) InspectorRun {
	t.Helper()
	return RunInspectorEnv(t, nil, args...)
}

// RunInspectorEnv is RunInspector with more environment variables
// ("NAME=value").
func RunInspectorEnv(t testing.TB, env []string, args ...string) InspectorRun {
	t.Helper()
	pkg := filepath.Join(NodeDir(t), "node_modules", "@modelcontextprotocol", "inspector")
	bin := packageBin(t, pkg, "inspector")
	return runInspector(t, "inspector 2.x", "", env, append([]string{bin, "--cli"}, args...))
}

// RunInspectorV1 runs the Inspector CLI of npm
// @modelcontextprotocol/inspector-cli 1.x (its `mcp-inspector-cli` bin,
// TypeScript SDK 1.x client: the initialize handshake and a session) as
// `mcp-inspector-cli --cli ARGS...`, with Node 22.
//
// It runs in the package's build folder: 1.0.3 looks for its own
// package.json with fs.existsSync("../package.json"), relative to the
// working directory, but imports the path it picks relative to its module,
// so from any folder whose parent holds no package.json it stops with
// "Cannot find module '.../node_modules/@modelcontextprotocol/package.json'"
// before it connects.
func RunInspectorV1(t testing.TB, args ...string) InspectorRun {
	t.Helper()
	pkg := filepath.Join(NodeDir(t), "node_modules", "@modelcontextprotocol", "inspector-cli")
	bin := packageBin(t, pkg, "mcp-inspector-cli")
	return runInspector(t, "inspector-cli 1.x", filepath.Dir(bin), nil, append([]string{bin, "--cli"}, args...))
}

// packageBin is the script an installed npm package names as its bin.
func packageBin(t testing.TB, pkg, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		t.Fatalf("the Inspector is not installed: %v", err)
	}
	var manifest struct {
		Version string            `json:"version"`
		Bin     map[string]string `json:"bin"`
	}
	if err := json.Unmarshal(data, &manifest); err != nil {
		t.Fatalf("%s/package.json: %v", pkg, err)
	}
	rel, ok := manifest.Bin[name]
	if !ok {
		t.Fatalf("%s %s has no bin %q: %v", filepath.Base(pkg), manifest.Version, name, manifest.Bin)
	}
	bin := filepath.Join(pkg, rel)
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the bin %s of %s: %v", name, filepath.Base(pkg), err)
	}
	return bin
}

// runInspector runs node (Node 22, first on PATH for any node the CLI
// starts) with args in dir, with HOME in a temporary folder and env,
// within InspectorTimeout; it fails the test if the CLI cannot be started
// or does not finish in time.
func runInspector(t testing.TB, name, dir string, env, args []string) InspectorRun {
	t.Helper()
	node := Node22(t)
	run := InspectorRun{Name: name, Args: args[1:]}
	ctx, cancel := context.WithTimeout(context.Background(), InspectorTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"HOME="+t.TempDir(),
		"PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"NO_COLOR=1",
		// There is no OS keychain here: keep secrets (a --header's value)
		// in memory, as the 2.x CLI does anyway, without saying so.
		"MCP_INSPECTOR_SECRET_STORE=memory",
	)
	cmd.Env = append(cmd.Env, env...)
	// The 1.x launcher runs the CLI as a child: end the whole group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	run.Stdout, run.Stderr = stdout.String(), stderr.String()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("the Inspector CLI did not finish within %v:\n%s", InspectorTimeout, run)
	case errors.As(err, &exit):
		run.ExitCode = exit.ExitCode()
	case err != nil:
		t.Fatalf("running the Inspector CLI: %v\n%s", err, run)
	}
	return run
}
