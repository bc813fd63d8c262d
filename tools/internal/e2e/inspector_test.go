package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
)

// The MCP Inspector's CLI as a user runs it against the gateway: one
// process per request, over HTTP, against a real Caddy. Three clients:
// the Inspector 2.x CLI (`npx @modelcontextprotocol/inspector --cli`, as
// the README tells users) in its default era, which has the initialize
// handshake and a session, and in the 2026-07-28 era (--protocol-era
// modern: no session, server/discover); and the 1.x CLI of npm
// @modelcontextprotocol/inspector-cli (TypeScript SDK 1.x). Versions: see
// node/package.json.

// inspectorResult is what an Inspector CLI prints for any of the methods
// used here: a tools/call result (toolResult) or a list, read or get.
type inspectorResult struct {
	toolResult
	StructuredContent json.RawMessage `json:"structuredContent"`
	Tools             []struct {
		Name        string         `json:"name"`
		InputSchema map[string]any `json:"inputSchema"`
	} `json:"tools"`
	Resources []struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	} `json:"resources"`
	Prompts []struct {
		Name string `json:"name"`
	} `json:"prompts"`
	Contents []struct {
		URI  string `json:"uri"`
		Text string `json:"text"`
	} `json:"contents"`
	Messages []struct {
		Role    string `json:"role"`
		Content struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"messages"`
}

// inspectorCLI is one Inspector CLI, run one request at a time.
type inspectorCLI struct {
	name string
	// v1: the 1.x CLI, which prints the bare result and a failure as
	// text; otherwise the 2.x CLI, run with --format json (the result as
	// {"result": ...} on stdout; a failure as {"error": {"code": ...}} on
	// stderr, with an exit code that says which) and flags.
	v1    bool
	flags []string
	// modern: it speaks 2026-07-28, whose results carry the server's
	// identity in _meta.
	modern bool
}

// inspectorCLIs are the Inspector CLIs the tests drive the gateway with.
var inspectorCLIs = []inspectorCLI{
	{name: "inspector 2.x"},
	{name: "inspector 2.x 2026-07-28", flags: []string{"--protocol-era", "modern"}, modern: true},
	{name: "inspector-cli 1.x", v1: true},
}

// args are the CLI's arguments for a request to url over HTTP.
func (cli inspectorCLI) args(url string, args ...string) []string {
	all := []string{url, "--transport", "http"}
	if !cli.v1 {
		all = append(append(all, "--format", "json"), cli.flags...)
	}
	return append(all, args...)
}

// run runs one request with the CLI and returns the result it printed, if
// any, and the run.
func (cli inspectorCLI) run(t *testing.T, url string, args ...string) (inspectorResult, testenv.InspectorRun) {
	t.Helper()
	var r inspectorResult
	if cli.v1 {
		run := testenv.RunInspectorV1(t, cli.args(url, args...)...)
		if run.ExitCode == 0 {
			run.Decode(t, &r)
		}
		return r, run
	}
	run := testenv.RunInspector(t, cli.args(url, args...)...)
	if strings.TrimSpace(run.Stdout) == "" {
		return r, run
	}
	var out struct {
		Result *inspectorResult `json:"result"`
	}
	run.Decode(t, &out)
	if out.Result == nil {
		t.Fatalf("no result in the output:\n%s", run)
	}
	return *out.Result, run
}

// inspectorError is the error a 2.x CLI run printed last on stderr, and
// the HTTP status it names, if any.
func inspectorError(t *testing.T, run testenv.InspectorRun) (code, message string, status int) {
	t.Helper()
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Status  int    `json:"status"`
		} `json:"error"`
	}
	lines := strings.Split(strings.TrimSpace(run.Stderr), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &e); err != nil || e.Error.Code == "" {
		t.Fatalf("stderr does not end with the CLI's error envelope:\n%s", run)
	}
	return e.Error.Code, e.Error.Message, e.Error.Status
}

// mustRun runs a request with cli and fails the test, with the CLI's
// output, unless it succeeded.
func (cli inspectorCLI) mustRun(t *testing.T, url string, args ...string) inspectorResult {
	t.Helper()
	r, run := cli.run(t, url, args...)
	if run.ExitCode != 0 {
		t.Fatalf("the CLI failed:\n%s", run)
	}
	if r.IsError {
		t.Fatalf("the result is an error: %s\n%s", r.text(), run)
	}
	return r
}

// mustCall runs tools/call of tool with --tool-arg pairs.
func (cli inspectorCLI) mustCall(t *testing.T, url, tool string, toolArgs ...string) inspectorResult {
	t.Helper()
	args := []string{"--method", "tools/call", "--tool-name", tool}
	if len(toolArgs) > 0 {
		args = append(append(args, "--tool-arg"), toolArgs...)
	}
	r := cli.mustRun(t, url, args...)
	_, hasInfo := r.Meta["io.modelcontextprotocol/serverInfo"]
	if hasInfo != cli.modern {
		t.Errorf("%s: _meta %v: want the server's identity there only at 2026-07-28", tool, r.Meta)
	}
	return r
}

func (r inspectorResult) toolNames() []string {
	var names []string
	for _, tool := range r.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

func (r inspectorResult) resourceKeys() []string {
	var keys []string
	for _, res := range r.Resources {
		keys = append(keys, res.Name+" "+res.URI)
	}
	slices.Sort(keys)
	return keys
}

func (r inspectorResult) promptNames() []string {
	var names []string
	for _, p := range r.Prompts {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	return names
}

// schemaToolEcho is the prefix of the go-sdk everything-server's
// json_schema_2020_12_tool answer, which goes on with the arguments it
// received as JSON.
const schemaToolEcho = "JSON Schema 2020-12 tool called with: "

// checkEchoedArguments checks that the everything-server received want
// (JSON) as the arguments of json_schema_2020_12_tool.
func checkEchoedArguments(t *testing.T, r inspectorResult, want string) {
	t.Helper()
	got, ok := strings.CutPrefix(r.text(), schemaToolEcho)
	if !ok {
		t.Fatalf("json_schema_2020_12_tool answered %q", r.text())
	}
	var gotV, wantV any
	if err := json.Unmarshal([]byte(got), &gotV); err != nil {
		t.Fatalf("the echoed arguments %q: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &wantV); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotV, wantV) {
		t.Errorf("the upstream received arguments %s, want %s", got, want)
	}
}

// inspectorMetaCaddyfile fronts the go-sdk everything-server (HTTP) and
// server-memory (stdio) in meta mode, the demo's shape.
const inspectorMetaCaddyfile = `{
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
	}
}
`

// TestInspectorMetaMode drives a meta-mode gateway with each Inspector
// CLI: tools/list is the three meta-tools; discover_tools finds a tool by
// a query; get_tool_schema gives its schema; execute_tool with JSON
// arguments (--tool-arg key=<json>) reaches the upstream intact, and what
// one run stores in the memory upstream the next run reads back. The
// README's own Inspector commands work as printed.
func TestInspectorMetaMode(t *testing.T) {
	everythingURL, _ := testenv.StartEverythingServer(t)
	caddy := testenv.StartCaddy(t, strings.NewReplacer(
		"{EVERYTHING_URL}", everythingURL,
		"{MEMORY_FILE}", t.TempDir()+"/memory.jsonl",
	).Replace(inspectorMetaCaddyfile))
	url := caddy.URL("/mcp")

	// README.md: "npx @modelcontextprotocol/inspector --cli
	// http://localhost:8080/mcp --transport http --method tools/call
	// --tool-name discover_tools", and the same with --tool-arg 'query=...'.
	// The default output is the result, pretty-printed.
	t.Run("README commands", func(t *testing.T) {
		run := testenv.RunInspector(t, url, "--transport", "http", "--method", "tools/call", "--tool-name", "discover_tools")
		if run.ExitCode != 0 {
			t.Fatalf("the README's command failed:\n%s", run)
		}
		var r toolResult
		run.Decode(t, &r)
		var domains struct {
			Domains []struct {
				Name      string `json:"name"`
				ToolCount int    `json:"tool_count"`
			} `json:"domains"`
		}
		r.decode(t, &domains)
		var names []string
		for _, d := range domains.Domains {
			names = append(names, d.Name)
			if d.ToolCount == 0 {
				t.Errorf("domain %s lists no tools", d.Name)
			}
		}
		if !slices.Equal(names, []string{"everything", "memory"}) {
			t.Errorf("discover_tools() lists domains %v, want [everything memory]", names)
		}

		run = testenv.RunInspector(t, url, "--transport", "http", "--method", "tools/call", "--tool-name", "discover_tools",
			"--tool-arg", "query=remember a fact about a person")
		if run.ExitCode != 0 {
			t.Fatalf("the README's search failed:\n%s", run)
		}
		r = toolResult{}
		run.Decode(t, &r)
		var found struct {
			Results []struct {
				Name string `json:"name"`
			} `json:"results"`
		}
		r.decode(t, &found)
		if len(found.Results) == 0 || !slices.Contains([]string{"memory.add_observations", "memory.create_entities"}, found.Results[0].Name) {
			t.Errorf("the README's search ranks %+v, want memory.add_observations or memory.create_entities first", found.Results)
		}

		// README.md: a value that parses as JSON is sent as JSON, so a
		// query of digits is quoted to stay a string.
		run = testenv.RunInspector(t, url, "--transport", "http", "--method", "tools/call", "--tool-name", "discover_tools",
			"--tool-arg", `query="42"`)
		r = toolResult{}
		run.Decode(t, &r)
		var digits struct {
			Query *string `json:"query"`
		}
		r.decode(t, &digits)
		if run.ExitCode != 0 || digits.Query == nil || *digits.Query != "42" {
			t.Errorf("query=\"42\" did not reach discover_tools as the string 42:\n%s", run)
		}
	})

	for i, cli := range inspectorCLIs {
		t.Run(cli.name, func(t *testing.T) {
			listed := cli.mustRun(t, url, "--method", "tools/list")
			if got := listed.toolNames(); !slices.Equal(got, []string{"discover_tools", "execute_tool", "get_tool_schema"}) {
				t.Errorf("tools/list = %v, want exactly the three meta-tools", got)
			}
			for _, tool := range listed.Tools {
				if tool.InputSchema["type"] != "object" {
					t.Errorf("%s's inputSchema: %v", tool.Name, tool.InputSchema)
				}
			}

			const tool = "everything.json_schema_2020_12_tool"
			var found struct {
				Results []struct {
					Name string `json:"name"`
				} `json:"results"`
			}
			cli.mustCall(t, url, "discover_tools", "query=json schema 2020-12").decode(t, &found)
			if len(found.Results) == 0 || found.Results[0].Name != tool {
				t.Errorf("discover_tools(query: json schema 2020-12) ranks %+v, want %s first", found.Results, tool)
			}

			var schema struct {
				Name       string `json:"name"`
				Parameters struct {
					Properties map[string]map[string]any `json:"properties"`
					Defs       map[string]any            `json:"$defs"`
				} `json:"parameters"`
			}
			cli.mustCall(t, url, "get_tool_schema", "tool_name="+tool).decode(t, &schema)
			if schema.Name != tool || schema.Parameters.Properties["address"]["$ref"] != "#/$defs/address" || schema.Parameters.Defs["address"] == nil {
				t.Errorf("get_tool_schema(%s) = %+v", tool, schema)
			}

			// execute_tool's arguments is an object: --tool-arg parses a
			// JSON value, and the object, nested in turn, must reach the
			// upstream as it was written.
			args := fmt.Sprintf(`{"name":"Client %d","contactMethod":"email","email":"c%d@example.com","address":{"street":"%d Main St","city":"Springfield"}}`, i, i, i)
			checkEchoedArguments(t, cli.mustCall(t, url, "execute_tool", "tool_name="+tool, "arguments="+args), args)

			// The memory upstream keeps what one run stores; the next run,
			// another process and session, reads it back.
			entity := fmt.Sprintf("Person %d", i)
			cli.mustCall(t, url, "execute_tool", "tool_name=memory.create_entities",
				fmt.Sprintf(`arguments={"entities":[{"name":%q,"entityType":"person","observations":["works at Acme","speaks %d languages"]}]}`, entity, i+2))
			var graph struct {
				Entities []struct {
					Name         string   `json:"name"`
					Observations []string `json:"observations"`
				} `json:"entities"`
			}
			cli.mustCall(t, url, "execute_tool", "tool_name=memory.read_graph").decode(t, &graph)
			var observations []string
			for _, e := range graph.Entities {
				if e.Name == entity {
					observations = e.Observations
				}
			}
			if want := []string{"works at Acme", fmt.Sprintf("speaks %d languages", i+2)}; !slices.Equal(observations, want) {
				t.Errorf("memory.read_graph: %q observes %v, want %v: %+v", entity, observations, want, graph.Entities)
			}

			// An unknown tool is the gateway's tool error; the 2.x CLI
			// exits 5 on a result with isError.
			r, run := cli.run(t, url, "--method", "tools/call", "--tool-name", "execute_tool", "--tool-arg", "tool_name=everything.no_such_tool")
			if msg := r.gatewayError(t); !strings.HasPrefix(msg, "Unknown tool 'everything.no_such_tool'.") {
				t.Errorf("execute_tool of an unknown tool: %q", msg)
			}
			wantExit := 5
			if cli.v1 {
				wantExit = 0 // it prints the result, isError and all
			}
			if run.ExitCode != wantExit {
				t.Errorf("exit code %d on a tool error, want %d:\n%s", run.ExitCode, wantExit, run)
			}
		})
	}
}

// inspectorPassthroughCaddyfile fronts the go-sdk everything-server in
// passthrough mode.
const inspectorPassthroughCaddyfile = `{
	admin 127.0.0.1:{ADMIN_PORT}
	persist_config off
}
http://127.0.0.1:{HTTP_PORT} {
	mcp_gateway /mcp* {
		mode passthrough
		upstream everything {EVERYTHING_URL}
	}
}
`

// TestInspectorPassthrough drives a passthrough gateway with each
// Inspector CLI: its tools, resources and prompts are the upstream's (as
// the Inspector lists them straight from the upstream), under the
// upstream's prefix; a resource reads and a prompt renders through it;
// a tool argument given as a JSON object reaches the upstream as one.
func TestInspectorPassthrough(t *testing.T) {
	everythingURL, _ := testenv.StartEverythingServer(t)
	caddy := testenv.StartCaddy(t, strings.Replace(inspectorPassthroughCaddyfile, "{EVERYTHING_URL}", everythingURL, 1))
	url := caddy.URL("/mcp")

	// What the upstream offers, asked directly.
	direct := inspectorCLIs[0]
	upstreamTools := direct.mustRun(t, everythingURL, "--method", "tools/list")
	upstreamResources := direct.mustRun(t, everythingURL, "--method", "resources/list")
	upstreamPrompts := direct.mustRun(t, everythingURL, "--method", "prompts/list")
	var wantTools, wantResources, wantPrompts []string
	for _, name := range upstreamTools.toolNames() {
		wantTools = append(wantTools, "everything_"+name)
	}
	for _, res := range upstreamResources.Resources {
		wantResources = append(wantResources, "everything_"+res.Name+" "+res.URI)
	}
	slices.Sort(wantResources)
	for _, name := range upstreamPrompts.promptNames() {
		wantPrompts = append(wantPrompts, "everything_"+name)
	}
	if len(wantTools) < 10 || !slices.Contains(wantResources, "everything_static-text test://static-text") || !slices.Contains(wantPrompts, "everything_test_prompt_with_arguments") {
		t.Fatalf("the everything-server offers tools %v, resources %v, prompts %v", wantTools, wantResources, wantPrompts)
	}
	upstreamText := direct.mustRun(t, everythingURL, "--method", "resources/read", "--uri", "test://static-text")
	if len(upstreamText.Contents) != 1 || upstreamText.Contents[0].Text == "" {
		t.Fatalf("the everything-server's test://static-text: %+v", upstreamText.Contents)
	}

	for i, cli := range inspectorCLIs {
		t.Run(cli.name, func(t *testing.T) {
			if got := cli.mustRun(t, url, "--method", "tools/list").toolNames(); !slices.Equal(got, wantTools) {
				t.Errorf("tools/list = %v\nwant the upstream's %v", got, wantTools)
			}
			if got := cli.mustRun(t, url, "--method", "resources/list").resourceKeys(); !slices.Equal(got, wantResources) {
				t.Errorf("resources/list = %v\nwant the upstream's %v", got, wantResources)
			}
			if got := cli.mustRun(t, url, "--method", "prompts/list").promptNames(); !slices.Equal(got, wantPrompts) {
				t.Errorf("prompts/list = %v\nwant the upstream's %v", got, wantPrompts)
			}

			read := cli.mustRun(t, url, "--method", "resources/read", "--uri", "test://static-text")
			if len(read.Contents) != 1 || read.Contents[0] != upstreamText.Contents[0] {
				t.Errorf("resources/read test://static-text = %+v, want the upstream's %+v", read.Contents, upstreamText.Contents)
			}

			arg1, arg2 := fmt.Sprintf("alpha-%d", i), "beta two"
			got := cli.mustRun(t, url, "--method", "prompts/get", "--prompt-name", "everything_test_prompt_with_arguments",
				"--prompt-args", "arg1="+arg1, "arg2="+arg2)
			if want := fmt.Sprintf("arg1='%s', arg2='%s'", arg1, arg2); len(got.Messages) != 1 || !strings.Contains(got.Messages[0].Content.Text, want) {
				t.Errorf("prompts/get = %+v, want a message with %q", got.Messages, want)
			}

			// address is an object in the tool's schema: given as JSON, it
			// must reach the upstream as an object, not a string.
			address := fmt.Sprintf(`{"street":"%d Elm St","city":"Shelbyville"}`, i)
			r := cli.mustCall(t, url, "everything_json_schema_2020_12_tool",
				"name=Pass Through", "contactMethod=email", "email=p@example.com", "address="+address)
			checkEchoedArguments(t, r, `{"name":"Pass Through","contactMethod":"email","email":"p@example.com","address":`+address+`}`)
		})
	}
}

// TestInspectorBasicAuth drives examples/security/basic-auth.Caddyfile
// (meta mode), as it is, with each Inspector CLI and the README's
// `--header "Authorization: Basic ..."`: alice sees both domains and her
// identity, not her credentials, reaches the upstream; bob sees his one
// domain. Without credentials, or with a wrong password, the CLI lists
// nothing and fails: the 2.x CLI with auth_required and exit code 3, and,
// where it may log in (in a terminal; MCP_AUTO_OPEN_ENABLED=true here), the
// 401 the gateway answered its attempt to register for OAuth; the 1.x CLI
// with its SDK's error, which names no status.
func TestInspectorBasicAuth(t *testing.T) {
	echo := testenv.EchoServer(t)
	port := testenv.FreePort(t)
	testenv.StartCaddyFile(t, "examples/security/basic-auth.Caddyfile", port,
		fmt.Sprint("GATEWAY_PORT=", port), "ECHO_URL="+echo, "GATEWAY_MODE=meta")
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	header := func(user, password string) []string {
		return []string{"--header", "Authorization: " + basic(user, password)}
	}

	if code := rawPost(t, url, nil, listTools); code != http.StatusUnauthorized {
		t.Fatalf("no credentials: %d, want 401", code)
	}
	if code := rawPost(t, url, map[string]string{"Authorization": basic("bob", "wrong")}, listTools); code != http.StatusUnauthorized {
		t.Fatalf("a wrong password: %d, want 401", code)
	}

	for _, cli := range inspectorCLIs {
		t.Run(cli.name, func(t *testing.T) {
			domains := func(args ...string) []string {
				t.Helper()
				var got struct {
					Domains []struct{ Name string } `json:"domains"`
				}
				cli.mustRun(t, url, append(args, "--method", "tools/call", "--tool-name", "discover_tools")...).decode(t, &got)
				var names []string
				for _, d := range got.Domains {
					names = append(names, d.Name)
				}
				return names
			}
			if got := domains(header("alice", "alice-password")...); !slices.Equal(got, []string{"echo", "ops"}) {
				t.Errorf("alice sees domains %v, want [echo ops]", got)
			}
			if got := domains(header("bob", "bob-password")...); !slices.Equal(got, []string{"echo"}) {
				t.Errorf("bob sees domains %v, want [echo]", got)
			}

			var seen map[string]string
			r := cli.mustRun(t, url, append(header("alice", "alice-password"),
				"--method", "tools/call", "--tool-name", "execute_tool", "--tool-arg", "tool_name=echo.headers")...)
			if err := json.Unmarshal([]byte(r.text()), &seen); err != nil {
				t.Fatalf("echo.headers answered %q: %v", r.text(), err)
			}
			if seen["X-User"] != "alice" {
				t.Errorf("the upstream got X-User %q, want alice", seen["X-User"])
			}
			if _, ok := seen["Authorization"]; ok {
				t.Errorf("the client's Authorization header reached the upstream: %v", seen)
			}

			for what, creds := range map[string][]string{"no credentials": nil, "a wrong password": header("bob", "wrong")} {
				_, run := cli.run(t, url, append(creds, "--method", "tools/list")...)
				if run.ExitCode == 0 || strings.Contains(run.Stdout, "discover_tools") {
					t.Errorf("%s: the CLI listed tools:\n%s", what, run)
					continue
				}
				if cli.v1 {
					if !strings.Contains(run.Stderr, "Failed to connect to MCP server: Streamable HTTP error: Error POSTing to endpoint") {
						t.Errorf("%s: the 1.x CLI does not say it could not connect:\n%s", what, run)
					}
					continue
				}
				if code, _, _ := inspectorError(t, run); code != "auth_required" || run.ExitCode != 3 {
					t.Errorf("%s: error %q, exit code %d; want auth_required, 3:\n%s", what, code, run.ExitCode, run)
				}
				// As in a terminal: the CLI tries OAuth, and the gateway's
				// basic_auth answers 401 there too.
				callback := fmt.Sprintf("http://127.0.0.1:%d/oauth/callback", testenv.FreePort(t))
				run = testenv.RunInspectorEnv(t, []string{"MCP_AUTO_OPEN_ENABLED=true"},
					cli.args(url, append(creds, "--callback-url", callback, "--method", "tools/list")...)...)
				if code, msg, status := inspectorError(t, run); code != "auth_required" || status != http.StatusUnauthorized || run.ExitCode != 3 {
					t.Errorf("%s, trying OAuth: error %q (%s), status %d, exit code %d; want auth_required, 401, 3:\n%s", what, code, msg, status, run.ExitCode, run)
				}
			}
		})
	}
}
