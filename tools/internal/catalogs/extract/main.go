// Command extract builds a catalog's tools.json from the published tool
// definitions of the servers its sources.json names, so that a catalog can
// be rebuilt from its sources and checked against them.
//
// Each server in sources.json says where its definitions come from:
//
//   - "git": JSON files in a clone of the server's repository at the
//     recorded commit (tool snapshots the project keeps under test). Each
//     file holds one tool object or an array of them; "include", if given,
//     keeps only the named tools, in that order.
//   - "tools/list": what the server itself answers to tools/list over
//     stdio, started from the executable given with -bin, with the
//     recorded arguments and environment (placeholder credentials only:
//     nothing is called, and the servers are listed offline).
//
// Only name, title, description, inputSchema and annotations are kept, as
// published; object keys come out sorted and HTML characters unescaped.
//
//	go run ./internal/catalogs/extract -catalog internal/catalogs/devtools \
//	    -git github/github-mcp-server=/path/to/clone -bin circleci=/path/to/mcp-server-circleci ...
//
// -only KEY re-extracts one server and keeps the others as they are in
// tools.json.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/catalogs"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type mapping map[string]string

func (m mapping) String() string { return fmt.Sprint(map[string]string(m)) }
func (m mapping) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" || v == "" {
		return fmt.Errorf("want KEY=VALUE, got %q", s)
	}
	m[k] = v
	return nil
}

func main() {
	var (
		dir  = flag.String("catalog", "", "the catalog directory holding sources.json; tools.json is written beside it")
		only = flag.String("only", "", "extract only the server with this key, keeping the others from tools.json")
		gits = mapping{}
		bins = mapping{}
	)
	flag.Var(gits, "git", "owner/name=DIR: a git clone (or git directory) of a repository sources.json names (repeatable)")
	flag.Var(bins, "bin", "key=PATH: the executable of a tools/list server (repeatable)")
	flag.Parse()
	if *dir == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*dir, *only, gits, bins); err != nil {
		log.Fatal(err)
	}
}

func run(dir, only string, gits, bins mapping) error {
	src, err := catalogs.ReadSources(filepath.Join(dir, catalogs.SourcesFile))
	if err != nil {
		return err
	}
	var previous []catalogs.Entry
	if only != "" {
		if previous, err = catalogs.ReadEntries(filepath.Join(dir, catalogs.ToolsFile)); err != nil {
			return err
		}
	}
	var out []catalogs.Entry
	for _, s := range src.Servers {
		if only != "" && s.Key != only {
			i := slices.IndexFunc(previous, func(e catalogs.Entry) bool { _, ok := e.Tools[s.Key]; return ok })
			if i < 0 {
				return fmt.Errorf("%s is not in tools.json yet: extract it too", s.Key)
			}
			out = append(out, previous[i])
			continue
		}
		var tools []catalogs.Tool
		switch s.Method {
		case catalogs.MethodGit:
			tools, err = fromGit(s, gits[s.Repository])
		case catalogs.MethodToolsList:
			tools, err = fromToolsList(s, bins[s.Key])
		default:
			err = fmt.Errorf("unknown method %q", s.Method)
		}
		if err != nil {
			return fmt.Errorf("%s: %v", s.Key, err)
		}
		log.Printf("%s: %d tools", s.Key, len(tools))
		out = append(out, catalogs.Entry{
			Name: s.Name, Description: s.Description, Web: webPage(s), Category: s.Category,
			Tools: map[string]catalogs.ToolList{s.Key: {Tools: tools}},
		})
	}
	return catalogs.WriteEntries(filepath.Join(dir, catalogs.ToolsFile), out)
}

// webPage is a server's public page: its repository on GitHub or, when it
// publishes none, its package on npm.
func webPage(s catalogs.Source) string {
	if s.Repository != "" {
		return "https://github.com/" + s.Repository
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(s.Package, "@"), "@")
	if strings.HasPrefix(s.Package, "@") {
		name = "@" + name
	}
	return "https://www.npmjs.com/package/" + name
}

// fromGit reads the tool files of s at its commit in the clone gitDir.
func fromGit(s catalogs.Source, gitDir string) ([]catalogs.Tool, error) {
	if gitDir == "" {
		return nil, fmt.Errorf("no clone of %s given (-git %s=DIR)", s.Repository, s.Repository)
	}
	files, err := gitOutput(gitDir, "ls-tree", "-r", "--name-only", s.Commit)
	if err != nil {
		return nil, err
	}
	var tools []catalogs.Tool
	for _, pattern := range s.Paths {
		matched := false
		for _, f := range strings.Split(strings.TrimSpace(files), "\n") {
			if ok, _ := path.Match(pattern, f); !ok {
				continue
			}
			matched = true
			data, err := gitOutput(gitDir, "show", s.Commit+":"+f)
			if err != nil {
				return nil, err
			}
			ts, err := decodeTools([]byte(data))
			if err != nil {
				return nil, fmt.Errorf("%s: %v", f, err)
			}
			tools = append(tools, ts...)
		}
		if !matched {
			return nil, fmt.Errorf("no file matches %s at %s", pattern, s.Commit)
		}
	}
	return include(tools, s.Include)
}

func gitOutput(gitDir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", gitDir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// decodeTools reads one tool object or an array of them.
func decodeTools(data []byte) ([]catalogs.Tool, error) {
	data = bytes.TrimSpace(data)
	var raws []map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if len(data) > 0 && data[0] == '[' {
		if err := dec.Decode(&raws); err != nil {
			return nil, err
		}
	} else {
		var one map[string]any
		if err := dec.Decode(&one); err != nil {
			return nil, err
		}
		raws = append(raws, one)
	}
	var tools []catalogs.Tool
	for _, r := range raws {
		t, err := toolFrom(r)
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// toolFrom keeps the published fields of a tool object.
func toolFrom(r map[string]any) (catalogs.Tool, error) {
	name, _ := r["name"].(string)
	if name == "" {
		return catalogs.Tool{}, errors.New("a tool has no name")
	}
	t := catalogs.Tool{Name: name, InputSchema: r["inputSchema"], Annotations: r["annotations"]}
	t.Title, _ = r["title"].(string)
	t.Description, _ = r["description"].(string)
	return t, nil
}

func include(tools []catalogs.Tool, names []string) ([]catalogs.Tool, error) {
	if len(names) == 0 {
		return tools, nil
	}
	var out []catalogs.Tool
	for _, n := range names {
		i := slices.IndexFunc(tools, func(t catalogs.Tool) bool { return t.Name == n })
		if i < 0 {
			return nil, fmt.Errorf("no tool %q in the files", n)
		}
		out = append(out, tools[i])
	}
	return out, nil
}

// fromToolsList starts the server at bin over stdio and lists its tools.
func fromToolsList(s catalogs.Source, bin string) ([]catalogs.Tool, error) {
	if bin == "" {
		return nil, fmt.Errorf("no executable given (-bin %s=PATH)", s.Key)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, s.Args...)
	cmd.Env = os.Environ()
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	rec := &recordingTransport{Transport: &mcp.CommandTransport{Command: cmd}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "catalog-extract", Version: "1"}, nil).Connect(ctx, rec, nil)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %v\n%s", bin, err, stderr.String())
	}
	defer cs.Close()
	// The SDK decodes the tools into its own types; the raw results keep
	// every field as the server sent it.
	for _, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("tools/list: %v\n%s", err, stderr.String())
		}
	}
	var tools []catalogs.Tool
	for _, raw := range rec.results() {
		var page struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if json.Unmarshal(raw, &page) != nil || page.Tools == nil {
			continue
		}
		for _, t := range page.Tools {
			ts, err := decodeTools(t)
			if err != nil {
				return nil, err
			}
			tools = append(tools, ts...)
		}
	}
	return include(tools, s.Include)
}

// recordingTransport keeps the raw result of every response it reads.
type recordingTransport struct {
	mcp.Transport
	mu  sync.Mutex
	raw []json.RawMessage
}

func (t *recordingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Connection: c, t: t}, nil
}

func (t *recordingTransport) results() []json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.raw)
}

type recordingConn struct {
	mcp.Connection
	t *recordingTransport
}

func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil && resp.Result != nil {
		c.t.mu.Lock()
		c.t.raw = append(c.t.raw, slices.Clone(resp.Result))
		c.t.mu.Unlock()
	}
	return msg, err
}
