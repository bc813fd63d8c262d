// Package livemcpbench holds the LiveMCPBench data (70 real MCP servers,
// 527 tools, labelled tasks; Apache-2.0, see data/LICENSE) and what the
// benchmarks and demos build from it: an MCP server per upstream whose
// tools answer with canned text, and retrieval metrics.
package livemcpbench

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"github.com/caddy-mcp/mcp-gateway/internal/retrieval"
	"os"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

//go:embed data/tools.json
var toolsJSON []byte

//go:embed data/tasks-dev.json
var tasksDevJSON []byte

//go:embed data/tasks-short.json
var tasksShortJSON []byte

//go:embed data/tasks-everyday.json
var tasksEverydayJSON []byte

//go:embed data/tasks-fresh.json
var tasksFreshJSON []byte

//go:embed data/tasks-blind.json
var tasksBlindJSON []byte

//go:embed data/tasks-calib.json
var tasksCalibJSON []byte

// Server is one upstream MCP server of the catalog.
type Server struct {
	// Domain is the server key made a valid gateway domain name.
	Domain      string
	Name        string
	Description string
	Category    string
	Tools       []*mcp.Tool
}

// Task is a labelled request: the tools an annotator used to solve it.
type Task = retrieval.Query

// Servers returns the embedded catalog, or the one in path if not "".
func Servers(path string) ([]*Server, error) {
	data := toolsJSON
	if path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return nil, err
		}
	}
	var raw []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Category    string `json:"category"`
		Tools       map[string]struct {
			Tools []*mcp.Tool `json:"tools"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("reading the tool catalog: %v", err)
	}
	var servers []*Server
	seen := make(map[string]bool)
	for _, r := range raw {
		for key, t := range r.Tools {
			d := DomainName(key)
			if seen[d] {
				return nil, fmt.Errorf("two servers map to domain %q", d)
			}
			seen[d] = true
			servers = append(servers, &Server{Domain: d, Name: r.Name, Description: r.Description, Category: r.Category, Tools: t.Tools})
		}
	}
	return servers, nil
}

// Task sets embedded in the package, by the name Tasks takes.
const (
	// DevTasks are 44 of LiveMCPBench's annotated multi-step tasks.
	DevTasks = "dev"
	// ShortTasks are short single-tool requests in everyday words, written
	// for this project (not part of LiveMCPBench).
	ShortTasks = "short"
	// EverydayTasks are single-tool requests for 80 tools drawn at random,
	// written without sight of the search code and avoiding the tools' own
	// words: a check that what is tuned on the other sets carries over.
	EverydayTasks = "everyday"
	// FreshTasks are short single-tool requests for 70 other tools drawn at
	// random, written without sight of the search code in plain everyday
	// words (neither copying nor avoiding the tools' own): a stand-in for
	// short everyday requests, written blind to the search's tuning.
	FreshTasks = "fresh"
	// BlindTasks are short single-tool requests for 70 tools no other set
	// uses, drawn at random and written like FreshTasks. Their misses have
	// not been read: they measure the search as it would do on requests
	// nobody tuned it for. Keep it so; tune on the other sets.
	BlindTasks = "blind"
	// CalibTasks are 9360 short single-tool requests for tools drawn at
	// random from the whole catalog, written like FreshTasks and asked for
	// in the words of the issue's held-out set ("short, single-tool
	// requests in everyday words"). Each batch of 120 was measured blind
	// once, to estimate the held-out figures; a development set since.
	CalibTasks = "calib"
)

// Tasks returns an embedded task set (DevTasks, ShortTasks, EverydayTasks,
// FreshTasks, BlindTasks or CalibTasks), or the tasks in the file at path.
func Tasks(path string) ([]Task, error) {
	var data []byte
	switch path {
	case DevTasks, "":
		data = tasksDevJSON
	case ShortTasks:
		data = tasksShortJSON
	case EverydayTasks:
		data = tasksEverydayJSON
	case FreshTasks:
		data = tasksFreshJSON
	case BlindTasks:
		data = tasksBlindJSON
	case CalibTasks:
		data = tasksCalibJSON
	default:
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return nil, err
		}
	}
	var tasks []Task
	if err := json.Unmarshal(data, &tasks); err != nil {
		return nil, fmt.Errorf("reading tasks: %v", err)
	}
	return tasks, nil
}

var invalidDomainChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// DomainName turns a server key ("Ant Design Components") into a gateway
// domain name ("Ant-Design-Components").
func DomainName(key string) string {
	d := strings.Trim(invalidDomainChars.ReplaceAllString(key, "-"), "-_")
	if len(d) > 32 {
		d = d[:32]
	}
	return d
}

// NewMCPServer serves s's tools; each answers with a line of canned text
// naming the tool and echoing its arguments. The server's description is
// its MCP instructions, so a gateway learns it on initialize.
func NewMCPServer(s *Server) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: s.Name, Version: "livemcpbench"}, &mcp.ServerOptions{Instructions: s.Description})
	for _, t := range s.Tools {
		name := t.Name
		srv.AddTool(t, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
				Text: fmt.Sprintf("canned answer from %s.%s for arguments %s", s.Domain, name, string(req.Params.Arguments)),
			}}}, nil
		})
	}
	return srv
}
