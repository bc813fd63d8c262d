// Command writerkit prepares what a request writer needs to label a
// catalog, and checks what the writer hands back.
//
//	go run ./internal/catalogs/writerkit sample -catalog devtools
//	    writes internal/catalogs/devtools/kit/: catalog.txt (every server and
//	    tool: name, description, parameter names), sample-1.json and
//	    sample-2.json (the target tools, 60 each) and prompt.txt
//	go run ./internal/catalogs/writerkit check -catalog devtools -set requests tasks-1.json tasks-2.json
//	    checks the writer's files against the samples and the catalog and
//	    writes internal/catalogs/devtools/tasks-requests.json
//
// The sample is deterministic: the catalog's (server key, tool) pairs
// ordered by the SHA-256 of "<seed>/<server key>/<tool>", where the seed
// is the catalog's name unless -seed is given, and the first -n taken.
// Anyone can recompute it without this program.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/catalogs"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/livemcpbench"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
)

const usage = `usage:
  writerkit sample -catalog NAME [-n 120] [-batch 60] [-seed SEED]
  writerkit check -catalog NAME -set SET FILE...`

func main() {
	log.SetFlags(0)
	if len(os.Args) < 2 {
		log.Fatal(usage)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	name := fs.String("catalog", "", "the catalog's name (a directory under internal/catalogs)")
	n := fs.Int("n", 120, "sample: how many tools to sample")
	batch := fs.Int("batch", 60, "sample: tools per sample file (one writer's batch)")
	seed := fs.String("seed", "", "sample: the seed (default: the catalog's name)")
	set := fs.String("set", "", "check: the name of the task set to write (tasks-<set>.json)")
	fs.Parse(os.Args[2:])
	if *name == "" {
		log.Fatal(usage)
	}
	c, servers, err := openCatalog(*name)
	if err != nil {
		log.Fatal(err)
	}
	switch os.Args[1] {
	case "sample":
		if *seed == "" {
			*seed = c.Name
		}
		err = writeKit(c, servers, *seed, *n, *batch)
	case "check":
		if *set == "" || fs.NArg() == 0 {
			log.Fatal(usage)
		}
		err = check(c, servers, *set, fs.Args())
	default:
		log.Fatal(usage)
	}
	if err != nil {
		log.Fatal(err)
	}
}

func openCatalog(name string) (*catalogs.Catalog, []*livemcpbench.Server, error) {
	root, err := procs.RepoRoot()
	if err != nil {
		return nil, nil, err
	}
	all, err := catalogs.All(procs.ToolsDir(root))
	if err != nil {
		return nil, nil, err
	}
	c := catalogs.Find(all, name)
	if c == nil {
		return nil, nil, fmt.Errorf("no catalog %q; there are %s", name, strings.Join(catalogs.Names(all), ", "))
	}
	servers, err := c.Servers()
	return c, servers, err
}

// entry is one target tool of a sample.
type entry = catalogs.SampleEntry

// writeKit writes kit/ of catalog c.
func writeKit(c *catalogs.Catalog, servers []*livemcpbench.Server, seed string, n, batch int) error {
	dir := filepath.Join(c.Dir, "kit")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "catalog.txt"), []byte(catalogText(servers)), 0o644); err != nil {
		return err
	}
	sample := catalogs.Sample(servers, seed, c.Name, n)
	files := 0
	for i := 0; i < len(sample); i += batch {
		files++
		b, err := json.MarshalIndent(sample[i:min(i+batch, len(sample))], "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("sample-%d.json", files)), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	tools := 0
	for _, s := range servers {
		tools += len(s.Tools)
	}
	prompt := strings.NewReplacer("CATALOG", c.Name, "NTOOLS", fmt.Sprint(tools), "NSERVERS", fmt.Sprint(len(servers)), "BATCH", fmt.Sprint(batch)).Replace(promptTemplate)
	log.Printf("%s: %d tools sampled (seed %q) into %d files of up to %d, in %s", c.Name, len(sample), seed, files, batch, dir)
	return os.WriteFile(filepath.Join(dir, "prompt.txt"), []byte(prompt), 0o644)
}

// catalogText lists each server with the first 300 characters of its
// description, and each tool with the first 400 of its and its parameter
// names, as the LiveMCPBench calibration batches were written from.
func catalogText(servers []*livemcpbench.Server) string {
	var b strings.Builder
	for _, s := range servers {
		fmt.Fprintf(&b, "## %s: %s\n", s.Domain, clip(s.Description, 300))
		for _, t := range s.Tools {
			fmt.Fprintf(&b, "- %s: %s (parameters: %s)\n", catalogs.TaskName(servers, s.Domain, t.Name), clip(t.Description, 400), strings.Join(catalogs.ParamNames(t.InputSchema), ", "))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "..."
}

// check validates the writer's task files against the samples and the
// catalog, and writes the task set.
func check(c *catalogs.Catalog, servers []*livemcpbench.Server, set string, files []string) error {
	if c.HasTaskSet(set) {
		return fmt.Errorf("%s already exists: task sets are written once", c.TasksPath(set))
	}
	samples := map[string]entry{}
	kit, _ := filepath.Glob(filepath.Join(c.Dir, "kit", "sample-*.json"))
	for _, f := range kit {
		var es []entry
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &es); err != nil {
			return fmt.Errorf("%s: %v", f, err)
		}
		for _, e := range es {
			samples[e.TaskID] = e
		}
	}
	var all []livemcpbench.Task
	var problems []string
	seen := map[string]bool{}
	for _, f := range files {
		tasks, err := livemcpbench.Tasks(f)
		if err != nil {
			return fmt.Errorf("%s: %v", f, err)
		}
		for _, t := range tasks {
			problems = append(problems, checkTask(servers, samples, seen, t)...)
			all = append(all, t)
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	log.Printf("%d tasks written to %s", len(all), c.TasksPath(set))
	return os.WriteFile(c.TasksPath(set), append(b, '\n'), 0o644)
}

func checkTask(servers []*livemcpbench.Server, samples map[string]entry, seen map[string]bool, t livemcpbench.Task) []string {
	var problems []string
	bad := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s: ", t.ID)+fmt.Sprintf(format, args...))
	}
	e, ok := samples[t.ID]
	switch {
	case !ok:
		bad("no such task_id in the samples")
		return problems
	case seen[t.ID]:
		bad("written twice")
	}
	seen[t.ID] = true
	if words := len(strings.Fields(t.Query)); words < 3 || words > 16 {
		bad("%d words; the prompt asks for 4 to 14", words)
	}
	if strings.Contains(strings.ToLower(t.Query), strings.ToLower(e.Tool)) && strings.ContainsAny(e.Tool, "_-.") {
		bad("the request names the tool %s", e.Tool)
	}
	if len(t.Tools) == 0 || t.Tools[0] != e.Name {
		bad("tools must start with the entry's tool %q, got %v", e.Name, t.Tools)
	}
	if t.Category != e.Server {
		bad("category must be the entry's server %q, got %q", e.Server, t.Category)
	}
	for _, name := range t.Tools {
		if err := catalogs.ResolveTaskName(servers, name); err != nil {
			bad("%v", err)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(t.Tools)))) != len(t.Tools) {
		bad("a tool is listed twice")
	}
	return problems
}

const promptTemplate = `You are writing test data: short requests that a person would type to an AI assistant, each of which one tool in a catalog of MCP tools would serve.

Files (read only these two; do not open or search any other file on this machine, and do not run any search program):
- /tmp/CATALOG/catalog.txt: the whole catalog, NTOOLS tools of NSERVERS servers. Each "## server" line names a server and its description; each "- name: description (parameters: ...)" line below it is one of its tools. A name that several servers share is written "server.name".
- /tmp/CATALOG/sample-K.json: BATCH entries, each with task_id, server, tool, name, description and parameters.

For each of the entries, write one short, single-tool request in everyday words that this tool would serve:
- 4 to 14 words, the way an ordinary user would ask an assistant at work: a question or an instruction, with concrete details where they fit (a repository, a project, a customer, a channel, a file, a number, a name, a date).
- Neither copy the tool's own wording nor go out of your way to avoid it: use the words a person would naturally use.
- Do not name the server or the tool, and do not say "tool" or "MCP".
- Vary the phrasing across entries; do not start most requests the same way.
- One request per entry; it must need only this one tool.

For each request, list in "tools" the entry's "name" first, then the name of every other tool in the catalog (any server) that would serve that request equally well, written as catalog.txt writes it ("server.name" for a shared name, the bare name otherwise). Be strict: only tools that would really do the same job for this request; usually there are none.

Write the result to /tmp/CATALOG/tasks-K.json as a JSON array of objects in the sample's order:
{"task_id": <the entry's task_id>, "query": <the request>, "category": <the entry's server>, "tools": [<names>]}

Check the file parses as JSON, has one object per entry, and that every task_id matches the sample. Then reply with one line: "done K" and the number of tasks written.
`
