package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// envServerEnv makes TestStdioEnvValuesStaySecret's process a
// stdio MCP server that quotes its API_TOKEN, as a server failing to
// authenticate might: on stderr, and in a call's JSON-RPC error.
const envServerEnv = "GATEWAY_TEST_ENV_SERVER"

// envSecret is the stdio upstream's secret, given with `env`.
const envSecret = "sk-env-secret-4f9a1c77"

// TestStdioEnvValuesStaySecret: the values of a stdio upstream's `env`
// lines (its API keys, typically) are among the connection's secrets: a
// server that quotes one on stderr, or in a call's error, has it
// REDACTED in the gateway's log and in the client's error.
func TestStdioEnvValuesStaySecret(t *testing.T) {
	if os.Getenv(envServerEnv) != "" {
		fmt.Fprintf(os.Stderr, "authentication failed with API_TOKEN=%s\n", os.Getenv("API_TOKEN"))
		s := mcp.NewServer(&mcp.Implementation{Name: "env"}, nil)
		s.AddTool(&mcp.Tool{Name: "whoami", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, fmt.Errorf("401: the token %s is not valid", os.Getenv("API_TOKEN"))
		})
		_ = s.Run(context.Background(), &mcp.StdioTransport{})
		os.Exit(0)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zap.DebugLevel)
	cfg := &UpstreamConfig{Name: "local", Connection: Connection{
		Command: exe,
		Args:    []string{"-test.run=^TestStdioEnvValuesStaySecret$"},
		Env:     map[string]string{envServerEnv: "1", "API_TOKEN": envSecret},
		Timeout: Duration(10 * time.Second),
	}}
	up := NewUpstream(cfg.Connection, UpstreamOptions{Logger: zap.New(core), Discovery: true})
	g, err := New(Config{Upstreams: []*UpstreamConfig{cfg}}, []*Upstream{up}, Options{Logger: zap.New(core)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close(); up.Close() })
	<-g.Started()
	g.viewsMu.RLock()
	v := g.views[0]
	g.viewsMu.RUnlock()
	args, _ := json.Marshal(map[string]any{"tool_name": "local.whoami"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := v.executeTool(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: ExecuteToolName, Arguments: args}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text(res), envSecret) {
		t.Errorf("the client's error quotes the env value: %s", text(res))
	}
	waitFor(t, "the server's stderr logged", func() bool { return logs.FilterMessage("upstream stderr").Len() > 0 })
	for _, e := range logs.All() {
		line := e.Message
		for k, val := range e.ContextMap() {
			line += fmt.Sprintf(" %s=%v", k, val)
		}
		if strings.Contains(line, envSecret) {
			t.Errorf("a log line quotes the env value: %s", line)
		}
	}
}

// TestRedactorKeepsEnvPaths: an env value that is an absolute path (a
// data file's) is no credential and stays readable in errors; the others
// are scrubbed.
func TestRedactorKeepsEnvPaths(t *testing.T) {
	r := newRedactor(&Connection{Command: "server", Env: map[string]string{"API_TOKEN": "sk-abc-123456", "MEMORY_FILE_PATH": "/srv/data/memory.jsonl"}})
	got := r.text("open /srv/data/memory.jsonl: permission denied; token sk-abc-123456 refused")
	if strings.Contains(got, "sk-abc-123456") || !strings.Contains(got, "/srv/data/memory.jsonl") {
		t.Errorf("redacted: %q", got)
	}
}
