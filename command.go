package mcpgateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/caddy-mcp/mcp-gateway/internal/retrieval"
	"github.com/caddy-mcp/mcp-gateway/search"
	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"
)

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "mcp-gateway",
		Usage: "domains|search [--explain] <query>|score <queries.json> [--config <path>] [--adapter <name>] [--gateway <name>]",
		Short: "Shows an MCP gateway of a config: its domains, a search, search quality",
		Long: `
Loads a config (a Caddyfile or JSON, as caddy run does), connects to the
upstreams of one of its mcp_gateway handlers, and:

  domains               lists the domains: state, tool count, description
  search <query>        runs discover_tools(query) as a model would, over the
                        whole catalog (no access policy applies), and prints
                        the ranked tools; with --explain, also how the query
                        was read and why each tool ranks where it does: the
                        words it matched and where, each signal's part in
                        its score, and the reranks that moved it
  score <queries.json>  scores search quality on your own labelled queries: a
                        JSON array of {"query": "...", "tools": ["domain.tool",
                        ...]} (bare tool names work too); prints Recall@k,
                        Hit@k, MRR@10 and nDCG@5, and the queries whose tools
                        were not in the top 5 (with --verbose)

It does not start any server. --gateway picks the gateway by its name
when the config has several.`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.Flags().StringP("config", "c", "", "Configuration file (default: ./Caddyfile)")
			cmd.Flags().StringP("adapter", "a", "", "Name of config adapter to apply")
			cmd.Flags().StringP("gateway", "g", "", "The gateway's name, when the config has several")
			cmd.Flags().BoolP("verbose", "v", false, "score: also list the queries that missed")
			cmd.Flags().BoolP("explain", "e", false, "search: explain each result's rank")
			cmd.RunE = caddycmd.WrapCommandFuncForCobra(cmdMCPGateway)
		},
	})
}

func cmdMCPGateway(fl caddycmd.Flags) (int, error) {
	args := fl.Args()
	if len(args) == 0 {
		return caddy.ExitCodeFailedStartup, errors.New("say what to do: domains, search <query> or score <queries.json>")
	}
	g, closeGateway, err := offlineGateway(fl.String("config"), fl.String("adapter"), fl.String("gateway"))
	if err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	defer closeGateway()
	switch {
	case args[0] == "domains" && len(args) == 1:
		return 0, printDomains(os.Stdout, g)
	case args[0] == "search" && len(args) >= 2:
		return 0, printSearch(os.Stdout, g, strings.Join(args[1:], " "), fl.Bool("explain"))
	case args[0] == "score" && len(args) == 2:
		return 0, scoreQueries(os.Stdout, os.Stderr, g, args[1], fl.Bool("verbose"))
	}
	return caddy.ExitCodeFailedStartup, fmt.Errorf("unknown use %q: domains, search <query> or score <queries.json>", strings.Join(args, " "))
}

// offlineGateway loads the config and builds, outside any server, the
// gateway of its mcp_gateway handler named name (or its only one), with
// its upstreams connected (their first attempts made).
func offlineGateway(configFile, adapter, name string) (*gateway.Gateway, func(), error) {
	cfgJSON, _, _, err := caddycmd.LoadConfig(configFile, adapter)
	if err != nil {
		return nil, nil, err
	}
	var config any
	if err := json.Unmarshal(cfgJSON, &config); err != nil {
		return nil, nil, err
	}
	var handlers []*Handler
	var decodeErr error
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["handler"] == "mcp_gateway" {
				// Decoded as Caddy decodes a module: without the key
				// that names it, strictly.
				delete(v, "handler")
				b, _ := json.Marshal(v)
				h := new(Handler)
				if err := caddy.StrictUnmarshalJSON(b, h); err != nil {
					decodeErr = errors.Join(decodeErr, fmt.Errorf("mcp_gateway: %w", err))
					return
				}
				handlers = append(handlers, h)
				return
			}
			for _, child := range v {
				walk(child)
			}
		case []any:
			for _, child := range v {
				walk(child)
			}
		}
	}
	walk(config)
	if decodeErr != nil {
		return nil, nil, decodeErr
	}
	var names []string
	var h *Handler
	for _, candidate := range handlers {
		names = append(names, candidate.name())
		if candidate.name() == name || (name == "" && len(handlers) == 1) {
			h = candidate
		}
	}
	switch {
	case len(handlers) == 0:
		return nil, nil, errors.New("the config has no mcp_gateway handler")
	case h == nil && name == "":
		return nil, nil, fmt.Errorf("the config has several gateways; pick one with --gateway: %s", strings.Join(names, ", "))
	case h == nil:
		return nil, nil, fmt.Errorf("no gateway named %q; the config has %s", name, strings.Join(names, ", "))
	}
	if err := h.Config.Validate(); err != nil {
		return nil, nil, err
	}
	repl := caddy.NewReplacer()
	cfg := h.Config
	cfg.Upstreams = make([]*gateway.UpstreamConfig, len(h.Upstreams))
	ups := make([]*gateway.Upstream, len(h.Upstreams))
	for i, uc := range h.Upstreams {
		resolved := *uc
		resolved.Connection = resolveConnection(uc.Connection, repl)
		cfg.Upstreams[i] = &resolved
		ups[i] = gateway.NewUpstream(resolved.Connection, gateway.UpstreamOptions{Discovery: true})
	}
	closeAll := func() {
		for _, u := range ups {
			u.Close()
		}
	}
	g, err := gateway.New(cfg, ups, gateway.Options{})
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	select {
	case <-g.Started():
	case <-time.After(gateway.DefaultStartupWait):
	}
	return g, func() { g.Close(); closeAll() }, nil
}

func printDomains(w io.Writer, g *gateway.Gateway) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DOMAIN\tSTATE\tTOOLS\tDESCRIPTION")
	for _, u := range g.Upstreams() {
		desc := ""
		if d := g.Catalog().Domain(u.Name); d != nil {
			desc = d.Summary
		}
		if u.LastError != "" {
			desc = u.LastError
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", terminalText(u.Name), u.State, u.Tools, terminalText(desc))
	}
	return tw.Flush()
}

// discoverAnswer is the part of a discover_tools search answer the command
// reads, with the explanations of an explained search.
type discoverAnswer struct {
	Results []struct {
		Name        string              `json:"name"`
		Description string              `json:"description"`
		Score       float64             `json:"score"`
		Explanation *search.Explanation `json:"explanation"`
	} `json:"results"`
	Total   int             `json:"total"`
	Note    string          `json:"note"`
	Error   string          `json:"error"`
	Reading *search.Reading `json:"reading"`
}

func discover(g *gateway.Gateway, query string) (discoverAnswer, error) {
	return discoverWith(g.Discover, query)
}

func discoverWith(run func(context.Context, map[string]any) (string, bool), query string) (discoverAnswer, error) {
	text, isError := run(context.Background(), map[string]any{"query": query})
	var a discoverAnswer
	if err := json.Unmarshal([]byte(text), &a); err != nil {
		return a, fmt.Errorf("unexpected answer %q: %v", text, err)
	}
	if isError {
		return a, errors.New(a.Error)
	}
	return a, nil
}

func printSearch(w io.Writer, g *gateway.Gateway, query string, explain bool) error {
	run := g.Discover
	if explain {
		run = g.DiscoverExplained
	}
	a, err := discoverWith(run, query)
	if err != nil {
		return err
	}
	if explain && a.Reading != nil {
		printReading(w, a.Reading)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i, r := range a.Results {
		fmt.Fprintf(tw, "%d\t%s\t%s\n", i+1, terminalText(r.Name), terminalText(r.Description))
		if explain && r.Explanation != nil {
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(w, "   score %.3f\n", r.Score)
			for _, line := range strings.Split(r.Explanation.String(), "\n") {
				fmt.Fprintf(w, "   %s\n", terminalText(line))
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d of %d matching tools.", len(a.Results), a.Total)
	if a.Note != "" {
		fmt.Fprintf(w, " %s", terminalText(a.Note))
	}
	fmt.Fprintln(w)
	return nil
}

// printReading prints how the search read a query: its words with their
// weights and origins, and what each signal that applies read off it.
func printReading(w io.Writer, r *search.Reading) {
	fmt.Fprint(w, "Read as:")
	for _, word := range r.Words {
		fmt.Fprintf(w, " %s ×%.2f", terminalText(word.Word), word.Weight)
		var why []string
		if word.From != search.MainWords {
			why = append(why, word.From)
		}
		why = append(why, word.Rules...)
		if word.Required {
			why = append(why, "required")
		}
		if len(why) > 0 {
			fmt.Fprintf(w, " (%s)", terminalText(strings.Join(why, ", ")))
		}
	}
	fmt.Fprintln(w)
	for _, s := range r.Signals {
		fmt.Fprintf(w, "Signal %s: %s\n", s.Signal, terminalText(s.Read))
	}
	fmt.Fprintln(w)
}

// scoreQueries runs every labelled query of path through the gateway's
// search and prints the retrieval figures, with a count of the queries
// done on progress (once a second).
func scoreQueries(w, progress io.Writer, g *gateway.Gateway, path string, verbose bool) error {
	tasks, err := retrieval.ReadQueries(path)
	if err != nil {
		return fmt.Errorf("reading %s: %v", path, err)
	}
	if len(tasks) == 0 {
		return fmt.Errorf("%s holds no queries", path)
	}
	shown := time.Now()
	rankings := make([][]string, len(tasks))
	var missed []string
	for i, task := range tasks {
		a, err := discover(g, task.Query+" limit:10")
		if err != nil {
			return fmt.Errorf("query %q: %v", task.Query, err)
		}
		qualified := slices.ContainsFunc(task.Tools, func(t string) bool { return strings.Contains(t, ".") })
		for _, r := range a.Results {
			name := r.Name
			if !qualified {
				_, name, _ = strings.Cut(r.Name, ".")
			}
			rankings[i] = append(rankings[i], name)
		}
		if m := retrieval.Evaluate(tasks[i:i+1], rankings[i:i+1]); m.Tasks == 1 && m.Hit5 == 0 {
			missed = append(missed, fmt.Sprintf("  %q wants %s; top 5: %s", task.Query, strings.Join(task.Tools, ", "), terminalText(strings.Join(rankings[i][:min(5, len(rankings[i]))], ", "))))
		}
		if time.Since(shown) > time.Second || i == len(tasks)-1 {
			shown = time.Now()
			fmt.Fprintf(progress, "\rsearching %d/%d", i+1, len(tasks))
		}
	}
	fmt.Fprintln(progress)
	m := retrieval.Evaluate(tasks, rankings)
	fmt.Fprintln(w, retrieval.Header())
	fmt.Fprintln(w, m.Row("gateway search"))
	if verbose && len(missed) > 0 {
		fmt.Fprintf(w, "\n%d queries without a labelled tool in the top 5:\n%s\n", len(missed), strings.Join(missed, "\n"))
	}
	return nil
}
