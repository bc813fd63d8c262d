package gateway

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/caddy-mcp/mcp-gateway/gateway/internal/supervisor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// inheritedEnv is the part of the gateway's environment a stdio upstream
// inherits: enough to find and run programs (npx, uvx, ...), not the
// gateway's secrets. Anything else is passed explicitly with Env.
var inheritedEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "TMPDIR", "LANG", "LC_ALL", "TZ"}

// stdioTerminateWait is how long a stdio upstream gets to exit after its
// stdin closes before its process group is killed.
const stdioTerminateWait = 2 * time.Second

// newTransport builds a fresh transport for one connection attempt (a
// stdio upstream's process is started per attempt), counting the
// notifications read off it with countNote (see ordering.go). The returned
// function ends whatever is left of the attempt (a process group).
func newTransport(c *Connection, logger *zap.Logger, countNote func()) (mcp.Transport, func(), error) {
	switch c.TransportName() {
	case TransportStdio:
		p, err := startStdio(c, logger, countNote)
		if err != nil {
			return nil, func() {}, err
		}
		return &mcp.IOTransport{Reader: p.stdout, Writer: p}, p.kill, nil
	case TransportSSE:
		return &mcp.SSEClientTransport{Endpoint: c.URL, HTTPClient: upstreamHTTPClient(c, countNote)}, func() {}, nil
	case TransportStreamableHTTP:
		return &mcp.StreamableClientTransport{Endpoint: c.URL, HTTPClient: upstreamHTTPClient(c, countNote)}, func() {}, nil
	}
	return nil, func() {}, fmt.Errorf("unknown transport %q", c.Transport)
}

// stdioProcess is a running stdio upstream: its stdout (counted) is the
// connection's reader, and it is the connection's writer, whose Close
// ends the process the way the MCP spec asks: close stdin, wait, then
// signal. The process is the server's supervisor (see
// internal/supervisor), which ends the server's whole tree when asked,
// when the server ends, or when the gateway dies, SIGKILL included.
type stdioProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	// lifeline is the write end of the supervisor's lifeline: open as long
	// as the process runs (and the gateway lives).
	lifeline *os.File
	exited   chan struct{}
	killOnce sync.Once
}

func startStdio(c *Connection, logger *zap.Logger, countNote func()) (*stdioProcess, error) {
	cmd, err := stdioCommand(c, logger)
	if err != nil {
		return nil, err
	}
	lifeline, lifelineW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{lifeline} // descriptor 3
	stdin, err := cmd.StdinPipe()
	if err != nil {
		lifeline.Close()
		lifelineW.Close()
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		lifeline.Close()
		lifelineW.Close()
		return nil, err
	}
	err = cmd.Start()
	lifeline.Close() // the supervisor's now
	if err != nil {
		lifelineW.Close()
		return nil, fmt.Errorf("starting %s: %w", c.Command, err)
	}
	p := &stdioProcess{cmd: cmd, stdin: stdin, stdout: &lineNotes{r: io.NopCloser(stdout), count: countNote}, lifeline: lifelineW, exited: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		if err != nil {
			logger.Info("stdio upstream exited", zap.Int("pid", cmd.Process.Pid), zap.Error(err))
		}
		close(p.exited)
		p.lifeline.Close()
	}()
	return p, nil
}

func (p *stdioProcess) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close closes stdin, gives the process stdioTerminateWait to exit, then
// ends it.
func (p *stdioProcess) Close() error {
	err := p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(stdioTerminateWait):
		p.kill()
	}
	return err
}

// kill ends what is left of the process: the supervisor ends the server's
// tree on SIGTERM (SIGTERM, a grace period, SIGKILL); should it not have
// exited by then, its process group is killed.
func (p *stdioProcess) kill() {
	p.killOnce.Do(func() {
		select {
		case <-p.exited:
			return // its pid may be another process's now
		default:
		}
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		go func() {
			select {
			case <-p.exited:
			case <-time.After(supervisor.Grace + 2*time.Second):
				_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			}
		}()
	})
}

// stdioCommand is the command that runs c's server under a supervisor:
// in its own process group (so that the group can be killed if the
// supervisor will not end), with only a minimal environment plus c's.
func stdioCommand(c *Connection, logger *zap.Logger) (*exec.Cmd, error) {
	server := exec.Command(c.Command, c.Args...) // resolves the program on PATH
	if server.Err == nil && filepath.IsAbs(server.Path) {
		// The supervisor would say so too, but only on its stderr.
		_, server.Err = exec.LookPath(server.Path)
	}
	if server.Err != nil {
		return nil, fmt.Errorf("starting %s: %w", c.Command, server.Err)
	}
	program, args := supervisor.Command(server.Path, c.Args)
	cmd := exec.Command(program, args...)
	cmd.Dir = c.Dir
	env := make([]string, 0, len(inheritedEnv)+len(c.Env)+1)
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
	cmd.Env = append(env, supervisor.Env+"=1") // the supervisor leaves it out of the server's
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if logger != nil {
		cmd.Stderr = &stderrLogger{logger: logger}
	}
	return cmd, nil
}

// upstreamHTTPClient sends the configured headers with every request and
// counts the notifications in event-stream responses.
func upstreamHTTPClient(c *Connection, countNote func()) *http.Client {
	return &http.Client{Transport: &upstreamRoundTripper{headers: c.Headers, countNote: countNote, base: upstreamTransport}}
}

// upstreamTransport carries every HTTP upstream's requests. Unlike
// http.DefaultTransport, which keeps 2 idle connections per host, it keeps
// enough for the calls many clients make to one upstream at once: with 2,
// every call beyond them opens (and soon drops) a TCP connection.
var upstreamTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 4096
	t.MaxIdleConnsPerHost = 512
	return t
}()

type upstreamRoundTripper struct {
	headers   http.Header
	countNote func()
	base      http.RoundTripper
}

func (t *upstreamRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, vs := range t.headers {
			req.Header.Del(k)
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
	}
	req = addCallHeaders(req)
	// A POST carries one message and its answer; subscriptions/listen's
	// stream lasts as long as the session and ends with it.
	var lifetime *detachedLifetime
	if req.Method == http.MethodPost && req.Header.Get(headerMethod) != "subscriptions/listen" {
		req, lifetime = detachedRequest(req)
	}
	resp, err := t.base.RoundTrip(req)
	if lifetime != nil {
		resp = lifetime.responded(resp)
	}
	if err != nil {
		return resp, err
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		if t.countNote != nil {
			resp.Body = &sseNotes{r: resp.Body, count: t.countNote}
		}
	} else {
		// The SDK bounds each SSE event and each stdio line
		// (mcp.DefaultMaxEventSize, mcp.DefaultMaxLineLength) but reads a
		// JSON body whole: bound it the same way.
		resp.Body = &limitedBody{ReadCloser: resp.Body, left: MaxUpstreamMessage}
	}
	return resp, nil
}

// MaxUpstreamMessage bounds one message from an upstream, in bytes, on
// every transport: an upstream cannot make the gateway buffer more.
const MaxUpstreamMessage = mcp.DefaultMaxEventSize

// errMessageTooLarge is the read error of an upstream body over
// MaxUpstreamMessage.
var errMessageTooLarge = fmt.Errorf("upstream message larger than %d bytes, the gateway's limit", MaxUpstreamMessage)

// limitedBody fails reads past its byte budget with errMessageTooLarge.
type limitedBody struct {
	io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		if n, err := b.ReadCloser.Read(one[:]); n == 0 && err != nil {
			return 0, err // the body ended right at the limit
		}
		return 0, errMessageTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
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
