package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostileServer builds testdata/hostile-server: a stdio MCP server whose
// tools are what a JSON file says, re-read when it changes.
func hostileServer(t *testing.T) string {
	return testenv.Build(t, "./internal/e2e/testdata/hostile-server", "hostile-server")
}

// writeTools writes the hostile server's definitions file (atomically: the
// server polls it).
func writeTools(t *testing.T, path string, tools []map[string]any) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"tools": tools})
	if err != nil {
		t.Fatal(err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// tool is a tool definition for the hostile server.
func tool(name, title, description string, params map[string]string) map[string]any {
	props := map[string]any{}
	for p, d := range params {
		props[p] = map[string]any{"type": "string", "description": d}
	}
	return map[string]any{"name": name, "title": title, "description": description,
		"inputSchema": map[string]any{"type": "object", "properties": props}}
}

// connect opens a go-sdk client session to a gateway endpoint.
func connect(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "security"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callText calls a tool and returns its first text and whether it failed.
func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return err.Error(), true
	}
	if len(res.Content) == 0 {
		return "", res.IsError
	}
	tc, _ := res.Content[0].(*mcp.TextContent)
	if tc == nil {
		return "", res.IsError
	}
	return tc.Text, res.IsError
}

// listedJSON is a passthrough client's tools/list as JSON text, unescaped
// as a reader sees it.
func listedJSON(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(res.Tools)
	return b.String()
}

// adminPost posts to Caddy's admin endpoint and returns the status and
// body.
func adminPost(t *testing.T, adminPort int, path string) (int, string) {
	t.Helper()
	resp, err := http.Post("http://127.0.0.1:"+strconv.Itoa(adminPort)+path, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// toolsFile is where a test keeps the hostile server's definitions.
func toolsFile(t *testing.T) string { return filepath.Join(t.TempDir(), "tools.json") }
