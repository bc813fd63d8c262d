// Command retrieval measures how well discover_tools finds the right tools:
// it runs labelled tasks through discover_tools over MCP against a real
// gateway (Caddy built from cmd/caddy, in front of the LiveMCPBench catalog
// served by examples/catalog-server as 70 HTTP upstreams, all on loopback)
// and prints Recall@1/3/5/10, Hit@1/3/5, MRR@10 and nDCG@5 next to plain
// Okapi BM25 (name + description + parameter names) computed in the same
// run, with the latency of each search over MCP.
//
//	go run ./bench/retrieval                      the development tasks
//	go run ./bench/retrieval -tasks short         short everyday requests
//	go run ./bench/retrieval -tasks everyday      requests for 80 random tools, written blind
//	go run ./bench/retrieval -tasks fresh         short requests for 70 random tools
//	go run ./bench/retrieval -tasks blind         short requests for 70 tools, never tuned on
//	go run ./bench/retrieval -tasks calib         short requests for 9360 random tools
//	go run ./bench/retrieval -tasks held-out.json -v
package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/caddy-mcp/mcp-gateway/internal/retrieval"
	"log"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/livemcpbench"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	var (
		tasksPath = flag.String("tasks", livemcpbench.DevTasks, `tasks: "dev", "short", "everyday", "fresh", "blind", "calib", or a JSON file in LiveMCPBench's format`)
		toolsPath = flag.String("tools", "", "a tools.json in LiveMCPBench's format (default: the embedded catalog)")
		verbose   = flag.Bool("v", false, "list the tasks whose first result is not a gold tool")
	)
	flag.Parse()
	if err := run(*tasksPath, *toolsPath, *verbose); err != nil {
		log.Fatal(err)
	}
}

func run(tasksPath, toolsPath string, verbose bool) error {
	servers, err := livemcpbench.Servers(toolsPath)
	if err != nil {
		return err
	}
	tasks, err := livemcpbench.Tasks(tasksPath)
	if err != nil {
		return err
	}
	session, stop, err := startGateway(toolsPath)
	if err != nil {
		return err
	}
	defer stop()

	base := livemcpbench.NewBaseline(servers)
	ctx := context.Background()
	var ours, plain [][]string
	var latencies []time.Duration
	for _, task := range tasks {
		start := time.Now()
		names, err := livemcpbench.Discover(ctx, session, task.Query+" limit:10")
		if err != nil {
			return err
		}
		latencies = append(latencies, time.Since(start))
		ours = append(ours, names)
		plain = append(plain, base.Rank(task.Query, 10))
	}
	mo, mb := retrieval.Evaluate(tasks, ours), retrieval.Evaluate(tasks, plain)
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	fmt.Printf("%d tasks (%s) over %d tools in %d domains\n\n", len(tasks), tasksPath, countTools(servers), len(servers))
	fmt.Println(retrieval.Header())
	fmt.Println(mb.Row("plain BM25"))
	fmt.Println(mo.Row("gateway discover_tools"))
	fmt.Printf("\ndiscover_tools over MCP (streamable HTTP through Caddy): median %s, p90 %s, max %s per search\n",
		latencies[len(latencies)/2].Round(time.Microsecond), latencies[len(latencies)*9/10].Round(time.Microsecond), latencies[len(latencies)-1].Round(time.Microsecond))
	if verbose {
		fmt.Println("\ntasks whose first result is not a gold tool:")
		for i, task := range tasks {
			if len(ours[i]) > 0 && slices.Contains(task.Tools, ours[i][0]) {
				continue
			}
			fmt.Printf("- %q\n  gold %v\n  got  %v\n", task.Query, task.Tools, ours[i][:min(5, len(ours[i]))])
		}
	}
	return nil
}

func countTools(servers []*livemcpbench.Server) int {
	n := 0
	for _, s := range servers {
		n += len(s.Tools)
	}
	return n
}

// startGateway builds and starts the catalog server and Caddy with the
// gateway in front of it, and connects an MCP client. stop ends them all.
func startGateway(toolsPath string) (*mcp.ClientSession, func(), error) {
	root, err := procs.RepoRoot()
	if err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp("", "retrieval-bench-")
	if err != nil {
		return nil, nil, err
	}
	var started []*procs.Process
	stop := func() {
		for i := len(started) - 1; i >= 0; i-- {
			started[i].Stop()
		}
		os.RemoveAll(dir)
	}
	fail := func(err error) (*mcp.ClientSession, func(), error) {
		stop()
		return nil, nil, err
	}
	caddyBin, catalogBin := filepath.Join(dir, "caddy"), filepath.Join(dir, "catalog-server")
	if err := procs.Build(root, "./cmd/caddy", caddyBin); err != nil {
		return fail(err)
	}
	if err := procs.Build(root, "./examples/catalog-server", catalogBin); err != nil {
		return fail(err)
	}
	catalogPort, err1 := procs.FreePort()
	gatewayPort, err2 := procs.FreePort()
	if err1 != nil || err2 != nil {
		return fail(fmt.Errorf("no free port: %v %v", err1, err2))
	}
	catalogAddr := fmt.Sprintf("127.0.0.1:%d", catalogPort)
	args := []string{"-http", catalogAddr}
	if toolsPath != "" {
		args = append(args, "-tools", toolsPath)
	}
	catalog, err := procs.Start(dir, nil, catalogBin, args...)
	if err != nil {
		return fail(err)
	}
	started = append(started, catalog)
	if err := procs.WaitPort(catalogPort, catalog, 30*time.Second); err != nil {
		return fail(err)
	}
	servers, err := livemcpbench.Servers(toolsPath)
	if err != nil {
		return fail(err)
	}
	caddyfile := livemcpbench.Caddyfile(servers, fmt.Sprintf("127.0.0.1:%d", gatewayPort), catalogAddr, "", "")
	if err := os.WriteFile(filepath.Join(dir, "Caddyfile"), []byte(caddyfile), 0o644); err != nil {
		return fail(err)
	}
	caddy, err := procs.Start(dir, procs.CaddyEnv(dir), caddyBin, "run", "--config", "Caddyfile", "--adapter", "caddyfile")
	if err != nil {
		return fail(err)
	}
	started = append(started, caddy)
	if err := procs.WaitPort(gatewayPort, caddy, 60*time.Second); err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "retrieval-bench"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: fmt.Sprintf("http://127.0.0.1:%d/", gatewayPort)}, nil)
	if err != nil {
		return fail(fmt.Errorf("connecting to the gateway: %v\n%s", err, procs.Tail(caddy.Output(), 4000)))
	}
	// Wait until every upstream is in the catalog.
	if err := waitForDomains(session, len(servers)); err != nil {
		return fail(err)
	}
	return session, func() { session.Close(); stop() }, nil
}

func waitForDomains(session *mcp.ClientSession, want int) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "discover_tools", Arguments: map[string]any{}})
		if err != nil {
			return err
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !strings.Contains(text, `"status"`) && strings.Count(text, `"tool_count"`) == want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the gateway's upstreams are not all ready after 60s: %s", procs.Tail(text, 2000))
		}
		time.Sleep(200 * time.Millisecond)
	}
}
