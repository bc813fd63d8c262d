package testenv

import (
	"bufio"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
)

// writerFunc adapts a function to io.Writer.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// TSClient is an official MCP TypeScript SDK client, driven one command
// at a time through internal/e2e/node/client.mjs (SDK 1.x) or client2.mjs
// (SDK 2.x), which share a line protocol (see the scripts).
type TSClient struct {
	t     testing.TB
	name  string
	stdin io.WriteCloser
	out   chan []byte
}

// StartTSClient starts a client of the TypeScript SDK 1.x (npm
// @modelcontextprotocol/sdk), which speaks the revisions up to
// 2025-11-25, with the initialize handshake and a session (not yet
// connected).
func StartTSClient(t testing.TB) *TSClient {
	t.Helper()
	return startTSClient(t, "client.mjs", "TypeScript SDK 1.x client")
}

// StartTS2Client starts a client of the TypeScript SDK 2.x (npm
// @modelcontextprotocol/client), which speaks the 2026-07-28 revision
// (server/discover, no session, input_required answered by the client
// itself) and falls back to the earlier ones (not yet connected). Its
// connect answer says which revision it negotiated ("protocolVersion")
// and every answer which MCP headers its HTTP requests carried ("http").
func StartTS2Client(t testing.TB) *TSClient {
	t.Helper()
	return startTSClient(t, "client2.mjs", "TypeScript SDK 2.x client")
}

func startTSClient(t testing.TB, script, name string) *TSClient {
	t.Helper()
	dir := NodeDir(t)
	c := &TSClient{t: t, name: name, out: make(chan []byte, 16)}
	cmd := newNodeCommand(dir, filepath.Join(dir, script))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	var stderrMu sync.Mutex
	cmd.Stderr = writerFunc(func(b []byte) (int, error) { stderrMu.Lock(); defer stderrMu.Unlock(); return stderr.Write(b) })
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the %s: %v", name, err)
	}
	c.stdin = stdin
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			c.out <- append([]byte(nil), sc.Bytes()...)
		}
		close(c.out)
	}()
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		stderrMu.Lock()
		defer stderrMu.Unlock()
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("%s stderr:\n%s", name, procs.Tail(stderr.String(), 4000))
		}
	})
	return c
}

// Do sends one command and decodes the answer into a map. It fails the
// test if the client does not answer within a minute.
func (c *TSClient) Do(cmd map[string]any) map[string]any {
	c.t.Helper()
	line, err := json.Marshal(cmd)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.stdin.Write(append(line, '\n')); err != nil {
		c.t.Fatalf("writing to the %s: %v", c.name, err)
	}
	select {
	case b, ok := <-c.out:
		if !ok {
			c.t.Fatalf("the %s exited during %s", c.name, line)
		}
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			c.t.Fatalf("decoding %q: %v", b, err)
		}
		return v
	case <-time.After(time.Minute):
		c.t.Fatalf("the %s did not answer %s within a minute", c.name, line)
	}
	return nil
}

// MustDo is Do for a command that must succeed.
func (c *TSClient) MustDo(cmd map[string]any) map[string]any {
	c.t.Helper()
	v := c.Do(cmd)
	if v["ok"] != true {
		c.t.Fatalf("%v failed: %v", cmd, v["error"])
	}
	return v
}
