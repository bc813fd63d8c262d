// Package e2e tests the gateway the way it is used: a real Caddy process
// built from cmd/caddy, real upstream MCP servers (the go-sdk conformance
// server over HTTP, @modelcontextprotocol/server-memory over stdio), and the
// official TypeScript SDK client, all over loopback.
package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
)

// gatewayCaddyfile fronts the everything server (HTTP), server-memory
// (stdio) and an upstream that is down from the start.
const gatewayCaddyfile = `{
	admin 127.0.0.1:{ADMIN_PORT}
	persist_config off
}
http://127.0.0.1:{HTTP_PORT} {
	mcp_gateway /mcp* {
		upstream everything {EVERYTHING_URL} {
			description "MCP feature showcase"
		}
		upstream memory {
			command node {NODE_DIR}/node_modules/@modelcontextprotocol/server-memory/dist/index.js
			env MEMORY_FILE_PATH {MEMORY_FILE}
			description "Knowledge graph memory"
		}
		upstream dead {DEAD_URL}
	}
}
`

func startGateway(t *testing.T) (*testenv.CaddyInstance, *testenv.TSClient) {
	t.Helper()
	everythingURL, _ := testenv.StartEverythingServer(t)
	caddyfile := strings.NewReplacer(
		"{EVERYTHING_URL}", everythingURL,
		"{DEAD_URL}", fmt.Sprintf("http://127.0.0.1:%d/mcp", testenv.FreePort(t)),
		"{MEMORY_FILE}", t.TempDir()+"/memory.jsonl",
	).Replace(gatewayCaddyfile)
	caddy := testenv.StartCaddy(t, caddyfile)
	client := testenv.StartTSClient(t)
	client.MustDo(map[string]any{"op": "connect", "url": caddy.URL("/mcp")})
	return caddy, client
}

// call runs tools/call for a meta-tool through the TS client.
func call(t *testing.T, c *testenv.TSClient, tool string, args map[string]any) toolResult {
	t.Helper()
	v := c.MustDo(map[string]any{"op": "callTool", "name": tool, "arguments": args})
	b, _ := json.Marshal(v["result"])
	var r toolResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	return r
}

type toolResult struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     string `json:"data"`
		MimeType string `json:"mimeType"`
	} `json:"content"`
	IsError bool           `json:"isError"`
	Meta    map[string]any `json:"_meta"`
}

func (r toolResult) text() string {
	if len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].Text
}

// decode parses a meta-tool's JSON answer.
func (r toolResult) decode(t *testing.T, v any) {
	t.Helper()
	if r.IsError {
		t.Fatalf("unexpected error: %s", r.text())
	}
	if err := json.Unmarshal([]byte(r.text()), v); err != nil {
		t.Fatalf("decoding %q: %v", r.text(), err)
	}
}

// gatewayError checks r is the gateway's own error and returns its text.
func (r toolResult) gatewayError(t *testing.T) string {
	t.Helper()
	if !r.IsError || r.Meta["io.github.caddy-mcp/error"] == nil {
		t.Fatalf("want a gateway error, got %+v", r)
	}
	var e struct{ Error string }
	if err := json.Unmarshal([]byte(r.text()), &e); err != nil || e.Error == "" {
		t.Fatalf("gateway error is not {\"error\": ...}: %q", r.text())
	}
	return e.Error
}

func TestMetaToolsThroughCaddy(t *testing.T) {
	_, client := startGateway(t)

	listed := client.MustDo(map[string]any{"op": "listTools"})
	var names []string
	for _, tool := range listed["result"].(map[string]any)["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"discover_tools", "execute_tool", "get_tool_schema"}) {
		t.Fatalf("tools/list = %v, want exactly the three meta-tools", names)
	}

	t.Run("all domains", func(t *testing.T) {
		var got struct {
			Domains []struct {
				Name      string   `json:"name"`
				ToolCount int      `json:"tool_count"`
				Groups    []string `json:"groups"`
				Status    string   `json:"status"`
			} `json:"domains"`
			TotalTools int    `json:"total_tools"`
			Note       string `json:"note"`
		}
		call(t, client, "discover_tools", map[string]any{}).decode(t, &got)
		if len(got.Domains) != 3 {
			t.Fatalf("domains = %+v", got.Domains)
		}
		ev, mem, dead := got.Domains[0], got.Domains[1], got.Domains[2]
		if ev.Name != "everything" || ev.ToolCount < 10 || ev.Status != "" {
			t.Errorf("everything = %+v", ev)
		}
		if mem.Name != "memory" || mem.ToolCount != 9 || !slices.Contains(mem.Groups, "entities") {
			t.Errorf("memory = %+v", mem)
		}
		if dead.Name != "dead" || dead.Status != "unavailable" || !strings.Contains(got.Note, "dead") {
			t.Errorf("dead = %+v, note %q: want it reported unavailable", dead, got.Note)
		}
		if got.TotalTools != ev.ToolCount+mem.ToolCount {
			t.Errorf("total_tools = %d", got.TotalTools)
		}
	})

	t.Run("one domain and one group", func(t *testing.T) {
		var dom struct {
			Tools []struct{ Name, Group string } `json:"tools"`
		}
		call(t, client, "discover_tools", map[string]any{"domain": "memory"}).decode(t, &dom)
		if len(dom.Tools) != 9 || !slices.ContainsFunc(dom.Tools, func(x struct{ Name, Group string }) bool { return x.Name == "memory.read_graph" }) {
			t.Errorf("memory tools = %+v", dom.Tools)
		}
		var grp struct {
			Group string                  `json:"group"`
			Tools []struct{ Name string } `json:"tools"`
		}
		call(t, client, "discover_tools", map[string]any{"domain": "memory", "group": "entities"}).decode(t, &grp)
		if len(grp.Tools) != 2 || grp.Tools[0].Name != "memory.create_entities" || grp.Tools[1].Name != "memory.delete_entities" {
			t.Errorf("memory/entities = %+v", grp)
		}
	})

	t.Run("search", func(t *testing.T) {
		var res struct {
			Results []struct{ Name, Domain string } `json:"results"`
		}
		call(t, client, "discover_tools", map[string]any{"query": "image content"}).decode(t, &res)
		if len(res.Results) == 0 || res.Results[0].Name != "everything.test_image_content" {
			t.Errorf("search 'image content' = %+v", res.Results)
		}
		call(t, client, "discover_tools", map[string]any{"query": "knowledge graph entities"}).decode(t, &res)
		if len(res.Results) == 0 || res.Results[0].Domain != "memory" {
			t.Errorf("search 'knowledge graph entities' = %+v", res.Results)
		}
		call(t, client, "discover_tools", map[string]any{"query": "xylophone"}).decode(t, &res)
		if len(res.Results) != 0 {
			t.Errorf("a query matching nothing returned %+v", res.Results)
		}
	})

	t.Run("schema", func(t *testing.T) {
		var schema struct {
			Name       string `json:"name"`
			Domain     string `json:"domain"`
			Parameters struct {
				Properties map[string]any `json:"properties"`
				Required   []string       `json:"required"`
			} `json:"parameters"`
		}
		call(t, client, "get_tool_schema", map[string]any{"tool_name": "memory.create_entities"}).decode(t, &schema)
		if schema.Domain != "memory" || schema.Parameters.Properties["entities"] == nil || !slices.Contains(schema.Parameters.Required, "entities") {
			t.Errorf("schema = %+v", schema)
		}
	})

	t.Run("execute on the stdio upstream", func(t *testing.T) {
		created := call(t, client, "execute_tool", map[string]any{
			"tool_name": "memory.create_entities",
			"arguments": map[string]any{"entities": []any{map[string]any{"name": "Caddy", "entityType": "server", "observations": []string{"serves MCP"}}}},
		})
		if created.IsError {
			t.Fatalf("create_entities: %s", created.text())
		}
		found := call(t, client, "execute_tool", map[string]any{"tool_name": "memory.search_nodes", "arguments": map[string]any{"query": "Caddy"}})
		if found.IsError || !strings.Contains(found.text(), "serves MCP") {
			t.Errorf("search_nodes after create = %+v", found)
		}
	})

	t.Run("execute on the HTTP upstream returns an image block", func(t *testing.T) {
		img := call(t, client, "execute_tool", map[string]any{"tool_name": "everything.test_image_content"})
		if img.IsError || len(img.Content) != 1 || img.Content[0].Type != "image" || img.Content[0].MimeType != "image/png" || img.Content[0].Data == "" {
			t.Errorf("test_image_content = %+v, want one image/png block", img)
		}
	})

	t.Run("the upstream tool's own error", func(t *testing.T) {
		res := call(t, client, "execute_tool", map[string]any{"tool_name": "everything.test_error_handling"})
		if !res.IsError || res.Meta["io.github.caddy-mcp/error"] != nil {
			t.Errorf("test_error_handling = %+v, want the upstream's isError without the gateway's mark", res)
		}
	})

	t.Run("misspelled tool name", func(t *testing.T) {
		msg := call(t, client, "execute_tool", map[string]any{"tool_name": "memory.read_grpah"}).gatewayError(t)
		if !strings.Contains(msg, "Did you mean 'memory.read_graph'") {
			t.Errorf("error = %q, want a suggestion", msg)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		for _, tc := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"discover_tools", map[string]any{"domain": "memroy"}, "Unknown domain 'memroy'. Did you mean 'memory'? Available domains: everything, memory, dead"},
			{"discover_tools", map[string]any{"domain": "memory", "group": "people"}, "Unknown group 'people' in domain 'memory'. Available groups:"},
			{"get_tool_schema", map[string]any{"tool_name": "nothing.like.this"}, "Unknown tool 'nothing.like.this'"},
			{"execute_tool", map[string]any{}, "execute_tool needs 'tool_name'"},
			{"execute_tool", map[string]any{"tool_name": "memory.read_graph", "arguments": "{}"}, "'arguments' must be a JSON object, got a string"},
			{"execute_tool", map[string]any{"tool_name": "memory.search_nodes", "arguments": map[string]any{"query": 42}}, "Invalid arguments for 'memory.search_nodes'"},
		} {
			if msg := call(t, client, tc.tool, tc.args).gatewayError(t); !strings.Contains(msg, tc.want) {
				t.Errorf("%s(%v) = %q, want %q", tc.tool, tc.args, msg, tc.want)
			}
		}
		// Still serving.
		var got struct {
			TotalTools int `json:"total_tools"`
		}
		call(t, client, "discover_tools", nil).decode(t, &got)
		if got.TotalTools == 0 {
			t.Error("the gateway stopped serving after bad input")
		}
	})
}
