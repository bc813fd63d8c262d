package gateway

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// inheritedEnv is the part of the gateway's environment a stdio upstream
// inherits: enough to find and run programs (npx, uvx, ...), not the
// gateway's secrets. Anything else is passed explicitly with Env.
var inheritedEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "TMPDIR", "LANG", "LC_ALL", "TZ"}

// newTransport builds a fresh transport for one connection attempt. A stdio
// transport wraps a single-use exec.Cmd, so each reconnect needs a new one;
// it is returned too, so the caller can end its process tree.
func newTransport(c *Connection, logger *zap.Logger) (mcp.Transport, *exec.Cmd, error) {
	switch c.TransportName() {
	case TransportStdio:
		cmd := stdioCommand(c, logger)
		return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, cmd, nil
	case TransportSSE:
		return &mcp.SSEClientTransport{Endpoint: c.URL, HTTPClient: upstreamHTTPClient(c)}, nil, nil
	case TransportStreamableHTTP:
		return &mcp.StreamableClientTransport{Endpoint: c.URL, HTTPClient: upstreamHTTPClient(c)}, nil, nil
	}
	return nil, nil, fmt.Errorf("unknown transport %q", c.Transport)
}

func stdioCommand(c *Connection, logger *zap.Logger) *exec.Cmd {
	cmd := exec.Command(c.Command, c.Args...)
	cmd.Dir = c.Dir
	env := make([]string, 0, len(inheritedEnv)+len(c.Env))
	for _, k := range inheritedEnv {
		if v, ok := os.LookupEnv(k); ok {
			if _, overridden := c.Env[k]; !overridden {
				env = append(env, k+"="+v)
			}
		}
	}
	keys := make([]string, 0, len(c.Env))
	for k := range c.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+c.Env[k])
	}
	cmd.Env = env
	// Its own process group, so that closing the upstream can end the whole
	// tree (npx starts node as a child), and a signal if the gateway dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	cmd.Stderr = &stderrLogger{logger: logger}
	return cmd
}

// killProcessGroup ends whatever is left of a stdio upstream's process tree.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// upstreamHTTPClient sends the configured headers with every request.
func upstreamHTTPClient(c *Connection) *http.Client {
	return &http.Client{Transport: &headerTransport{headers: c.Headers, base: http.DefaultTransport}}
}

type headerTransport struct {
	headers http.Header
	base    http.RoundTripper
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, vs := range t.headers {
			req.Header.Del(k)
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
	}
	return t.base.RoundTrip(req)
}

// stderrLogger logs a stdio upstream's stderr line by line, so an operator
// sees why a server failed to start. os/exec calls Write from one goroutine.
type stderrLogger struct {
	logger  *zap.Logger
	partial []byte
}

// maxStderrLine bounds one logged line; the rest of a longer line is dropped.
const maxStderrLine = 4096

func (s *stderrLogger) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			room := maxStderrLine - len(s.partial)
			s.partial = append(s.partial, p[:min(room, len(p))]...)
			break
		}
		line := append(s.partial, p[:min(i, max(0, maxStderrLine-len(s.partial)))]...)
		s.logger.Info("upstream stderr", zap.ByteString("line", bytes.TrimRight(line, "\r")))
		s.partial = s.partial[:0]
		p = p[i+1:]
	}
	return n, nil
}
