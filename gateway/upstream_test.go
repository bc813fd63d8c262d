package gateway

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestToolsListPaginationIsFollowed(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "paged"}, &mcp.ServerOptions{PageSize: 2})
	for i := range 7 {
		addTextTool(s, fmt.Sprintf("tool_%d", i), "A paged tool.", "ok")
	}
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("paged", serveHTTP(t, s).URL)}})
	if n := len(tg.Catalog().Domain("paged").Tools); n != 7 {
		t.Errorf("catalog has %d tools from a server listing 7 in pages of 2", n)
	}
}

func TestListChangedRefreshesTheCatalog(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "dynamic"}, nil)
	addTextTool(s, "first", "The first tool.", "1")
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("dyn", serveHTTP(t, s).URL)}})

	addTextTool(s, "second", "A tool added later.", "2") // sends notifications/tools/list_changed
	waitFor(t, "the new tool in the catalog", func() bool {
		return tg.Catalog().Domain("dyn").tool("second") != nil
	})
	if got := text(tg.call(t, ExecuteToolName, map[string]any{"tool_name": "dyn.second"})); got != "2" {
		t.Errorf("dyn.second = %q", got)
	}
	s.RemoveTools("first")
	waitFor(t, "the removed tool gone from the catalog", func() bool {
		return tg.Catalog().Domain("dyn").tool("first") == nil
	})
	msg := callError(t, tg, ExecuteToolName, map[string]any{"tool_name": "dyn.first"}, ErrUnknownTool)
	if !strings.Contains(msg, "Unknown tool 'dyn.first'") {
		t.Errorf("removed tool error = %q", msg)
	}
}

func TestSSEUpstream(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "legacy"}, nil)
	addTextTool(s, "ping", "Answer pong.", "pong")
	ts := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	up := httpUpstream("legacy", ts.URL)
	up.Transport = TransportSSE
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{up}})
	if got := text(tg.call(t, ExecuteToolName, map[string]any{"tool_name": "legacy.ping"})); got != "pong" {
		t.Errorf("legacy.ping over SSE = %q", got)
	}
}

func TestStdioUpstream(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	up := &UpstreamConfig{Name: "local", Connection: Connection{
		Command: exe,
		Args:    []string{"-test.run=^$"},
		Env:     map[string]string{stdioServerEnv: "1"},
		Dir:     dir,
	}}
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{up}})
	if got := text(tg.call(t, ExecuteToolName, map[string]any{"tool_name": "local.echo"})); got != "stdio says hi" {
		t.Errorf("local.echo over stdio = %q (state %v)", got, tg.Catalog().Domain("local").LastError)
	}
}

func TestStdioEnvironmentIsMinimal(t *testing.T) {
	t.Setenv("GATEWAY_SECRET_FOR_TEST", "s3cret")
	cmd, err := stdioCommand(&Connection{Command: "env", Env: map[string]string{"EXTRA": "1", "HOME": "/srv"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := strings.Join(cmd.Env, "\n")
	if strings.Contains(env, "s3cret") {
		t.Error("a stdio upstream inherits the gateway's secrets")
	}
	if !strings.Contains(env, "EXTRA=1") || !strings.Contains(env, "HOME=/srv") || strings.Count(env, "HOME=") != 1 {
		t.Errorf("env = %q, want configured values to be passed and to override inherited ones", env)
	}
	if os.Getenv("PATH") != "" && !strings.Contains(env, "PATH=") {
		t.Error("PATH is not passed, so `npx` would not be found")
	}
}

func TestStdioUpstreamThatFailsToStart(t *testing.T) {
	up := &UpstreamConfig{Name: "broken", Connection: Connection{Command: "/nonexistent/mcp-server"}}
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{up}})
	d := tg.Catalog().Domain("broken")
	if d.State != StateDown || d.LastError == nil {
		t.Errorf("state = %v, err = %v; want down with a reason", d.State, d.LastError)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
