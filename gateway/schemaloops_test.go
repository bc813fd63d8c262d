package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestLoopsInPlace(t *testing.T) {
	for _, tc := range []struct {
		schema string
		loops  bool
	}{
		{`{"type":"object","properties":{"x":{"type":"string"}}}`, false},
		{`true`, false},
		// Recursion that descends: a tree, and a definition used twice.
		{`{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}}}`, false},
		{`{"$defs":{"p":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/p"},"b":{"allOf":[{"$ref":"#/$defs/p"}]}}}`, false},
		{`{"definitions":{"node":{"properties":{"next":{"$ref":"#/definitions/node"}}}},"$ref":"#/definitions/node"}`, false},
		// Loops in place.
		{`{"type":"object","$defs":{"a":{"anyOf":[{"$ref":"#/$defs/a"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, true},
		{`{"$ref":"#"}`, true},
		{`{"allOf":[{"$ref":"#"}]}`, true},
		{`{"$defs":{"a":{"not":{"$ref":"#/$defs/b"}},"b":{"oneOf":[{"$ref":"#/$defs/a"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, true},
		{`{"$defs":{"a~b":{"if":{"$ref":"#/$defs/a~0b"}}},"properties":{"x":{"$ref":"#/$defs/a~0b"}}}`, true},
		{`{"properties":{"x":{"dependentSchemas":{"y":{"$ref":"#/properties/x"}}}}}`, true},
		// What the walk cannot follow.
		{`{"properties":{"x":{"$ref":"https://example.com/other.json"}}}`, true},
		{`{"properties":{"x":{"$ref":"#anchor"}}}`, true},
		{`{"properties":{"x":{"$ref":"#/$defs/missing"}}}`, true},
		{`{"properties":{"x":{"$id":"https://example.com/x","$ref":"#"}}}`, true},
		{`{"$dynamicRef":"#meta"}`, true},
	} {
		var doc any
		if err := json.Unmarshal([]byte(tc.schema), &doc); err != nil {
			t.Fatal(err)
		}
		if got := loopsInPlace(doc); got != tc.loops {
			t.Errorf("loopsInPlace(%s) = %v, want %v", tc.schema, got, tc.loops)
		}
	}
}

// childTestEnv makes a test run its body in a child process (the test
// binary again), so that a fatal error the runtime cannot recover (a
// stack overflow) fails the test instead of ending the test binary.
const childTestEnv = "GATEWAY_TEST_CHILD"

// inChild runs body in a child process (the test binary, running this
// test alone) and fails the test if the child does not pass within limit.
func inChild(t *testing.T, limit time.Duration, body func(t *testing.T)) {
	t.Helper()
	if os.Getenv(childTestEnv) == t.Name() {
		body(t)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), childTestEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		if i := bytes.Index(out, []byte("fatal error")); i >= 0 {
			out = out[i:min(len(out), i+1500)]
		} else if len(out) > 3000 {
			out = out[len(out)-3000:]
		}
		t.Fatalf("the gateway process died or failed (%v):\n%s", err, out)
	}
}

// loopSchemaServer lists one tool whose input schema's $refs loop
// without descending into the instance: a schema jsonschema-go resolves
// without complaint.
func loopSchemaServer(schemaJSON string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "loop"}, nil)
	var schema map[string]any
	if err := json.Unmarshal([]byte(schemaJSON), &schema); err != nil {
		panic(err)
	}
	s.AddTool(&mcp.Tool{Name: "loop", Description: "A tool with a looping input schema.", InputSchema: schema},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "called"}}}, nil
		})
	return s
}

// TestLoopingSchemaDoesNotKillTheGateway: an upstream's input
// schema whose $ref loops back to itself through anyOf (it resolves
// fine) makes the validator recurse until the Go runtime's stack limit,
// a fatal error no recover catches: one execute_tool call from any
// client ends the whole process (Caddy with it). The contract: the
// process never panics on input, and every input and upstream may be
// hostile.
func TestLoopingSchemaDoesNotKillTheGateway(t *testing.T) {
	inChild(t, 90*time.Second, func(t *testing.T) {
		url := serveHTTP(t, loopSchemaServer(`{"type":"object","$defs":{"a":{"anyOf":[{"$ref":"#/$defs/a"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`)).URL
		tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("l", url)}})
		res := tg.call(t, ExecuteToolName, map[string]any{"tool_name": "l.loop", "arguments": map[string]any{"x": 1}})
		if text(res) != "called" {
			t.Errorf("execute_tool answered %s, want the upstream's answer (it judges the arguments alone)", text(res))
		}
	})
}
