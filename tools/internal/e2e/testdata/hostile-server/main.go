// Command hostile-server is a stdio MCP server whose tools are whatever a
// JSON file says, re-read whenever the file changes (the server then
// tells its client the list changed). The end-to-end tests use it as an
// upstream that poisons its tool definitions, lists hostile names, or
// changes a tool after the gateway has pinned it.
//
//	hostile-server -tools tools.json
//
// tools.json is {"tools": [<MCP tool definitions>], "instructions": "..."};
// each tool answers a call with "called <name>".
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"log"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type definitions struct {
	Tools        []*mcp.Tool `json:"tools"`
	Instructions string      `json:"instructions"`
}

func main() {
	path := flag.String("tools", "", "the JSON file of tool definitions")
	flag.Parse()
	data, defs, err := read(*path)
	if err != nil {
		log.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "hostile"}, &mcp.ServerOptions{
		Instructions: defs.Instructions,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	names := register(s, defs, nil)
	go func() {
		for range time.Tick(100 * time.Millisecond) {
			next, defs, err := read(*path)
			if err != nil || bytes.Equal(next, data) {
				continue
			}
			data = next
			names = register(s, defs, names)
		}
	}()
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

func read(path string) ([]byte, definitions, error) {
	var defs definitions
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, defs, err
	}
	return data, defs, json.Unmarshal(data, &defs)
}

// register makes s's tools those of defs, removing the ones (of names)
// no longer there; the server notifies its client.
func register(s *mcp.Server, defs definitions, names []string) []string {
	var now []string
	listed := map[string]bool{}
	for _, t := range defs.Tools {
		if t.InputSchema == nil {
			t.InputSchema = map[string]any{"type": "object"}
		}
		name := t.Name
		s.AddTool(t, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "called " + name}}}, nil
		})
		now = append(now, name)
		listed[name] = true
	}
	var gone []string
	for _, n := range names {
		if !listed[n] {
			gone = append(gone, n)
		}
	}
	if len(gone) > 0 {
		s.RemoveTools(gone...)
	}
	return now
}
