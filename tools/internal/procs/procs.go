// Package procs builds and runs the real processes that tests and
// benchmarks drive: Caddy built from cmd/caddy, MCP servers, clients. Each
// process runs in its own process group, so stopping it ends its children
// too.
package procs

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// pluginModule is the module line of the plugin's go.mod, which marks the
// repository's root.
const pluginModule = "module github.com/caddy-mcp/mcp-gateway\n"

// RepoRoot is the repository's root: the directory holding the plugin's
// go.mod, found from the working directory upwards (past the tools
// module's own go.mod).
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.HasPrefix(b, []byte(pluginModule)) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("the plugin's go.mod (module github.com/caddy-mcp/mcp-gateway) is not above the working directory")
		}
		dir = parent
	}
}

// ToolsDir is the tools module's directory under the repository root:
// the programs, tests and benchmarks that are not the plugin.
func ToolsDir(root string) string { return filepath.Join(root, "tools") }

// Build compiles a package of the tools module (a path relative to it,
// such as ./cmd/caddy) or of one of its dependencies to out.
func Build(root, pkg, out string) error {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = ToolsDir(root)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Process is a started child process; its output is kept.
type Process struct {
	Cmd    *exec.Cmd
	output *syncBuffer
	done   chan struct{}
}

// Start runs a command in its own process group, with the environment
// plus env.
func Start(dir string, env []string, name string, args ...string) (*Process, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %v", name, err)
	}
	p := &Process{Cmd: cmd, output: out, done: make(chan struct{})}
	go func() { cmd.Wait(); close(p.done) }()
	return p, nil
}

// Output is what the process has written so far (stdout and stderr).
func (p *Process) Output() string { return p.output.String() }

// Exited is closed when the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.done }

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

// WaitPort waits until something accepts connections on the loopback
// port, failing early if p exits first.
func WaitPort(port int, p *Process, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited before listening on %d:\n%s", p.Cmd.Path, port, Tail(p.Output(), 8000))
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("nothing listens on port %d after %s", port, timeout)
}

// CaddyEnv keeps Caddy's autosaved config and data in dir.
func CaddyEnv(dir string) []string {
	return []string{"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_DATA_HOME=" + filepath.Join(dir, "data")}
}

// Tail is the last n bytes of s.
func Tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
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

func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}

// clockTicks is the kernel's USER_HZ, the unit of the CPU times in
// /proc/<pid>/stat: 100 on every Linux architecture Go supports (it is
// part of the user-space ABI, whatever the kernel's HZ).
const clockTicks = 100

// CPUTime is the CPU time a process has used so far, user and system, in
// all its threads (those that have exited included), from
// /proc/<pid>/stat. Its resolution is a clock tick, 10 ms.
func CPUTime(pid int) (time.Duration, error) {
	b, err := readFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// the fields counted are those after its closing parenthesis, which
	// begin with field 3 (state); utime and stime are fields 14 and 15.
	i := strings.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat: %q", pid, b)
	}
	f := strings.Fields(b[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat: %q", pid, b)
	}
	utime, err1 := strconv.ParseUint(f[11], 10, 64)
	stime, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %v", pid, err)
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}
