package mcpgateway

import (
	"encoding/json"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/caddy-mcp/mcp-gateway/search"
)

// operatorPage is the data of the operator page: one gateway's upstream
// health (and what the gateway did to their lists), the tools whose
// definition changed since pinned (to accept), its catalog by domain and
// group, a search run as the model's would be, and the searches that
// found nothing or only weak matches.
type operatorPage struct {
	Gateways  []string
	Gateway   gatewayReport
	Catalog   []catalogDomain
	Misses    []gateway.SearchMiss
	Query     string
	Searched  bool
	Explain   bool
	Reading   *search.Reading
	Results   []searchHit
	Note      string
	Error     string
	Raw       string
	Generated time.Time
}

// searchHit is one discover_tools result as the page lists it, with its
// explanation when the search explains.
type searchHit struct {
	Name        string              `json:"name"`
	Group       string              `json:"group"`
	Description string              `json:"description"`
	Score       float64             `json:"score"`
	Explanation *search.Explanation `json:"explanation"`
}

func serveOperatorPage(w http.ResponseWriter, r *http.Request, f *frontend) error {
	page := operatorPage{Generated: time.Now(), Catalog: catalogReport(f.gw.Catalog()), Misses: f.gw.SearchMisses()}
	for _, g := range gatewayReports() {
		page.Gateways = append(page.Gateways, g.Name)
		if g.Name == f.name {
			page.Gateway = g
		}
	}
	if q := strings.TrimSpace(r.URL.Query().Get("q")); q != "" {
		page.Query, page.Searched = q, true
		discover := f.gw.Discover
		if page.Explain = r.URL.Query().Get("explain") != ""; page.Explain {
			discover = f.gw.DiscoverExplained
		}
		text, isError := discover(r.Context(), map[string]any{"query": q})
		page.Raw = text
		var answer struct {
			Results []searchHit     `json:"results"`
			Note    string          `json:"note"`
			Error   string          `json:"error"`
			Reading *search.Reading `json:"reading"`
		}
		_ = json.Unmarshal([]byte(text), &answer)
		page.Results, page.Note, page.Reading = answer.Results, answer.Note, answer.Reading
		if isError {
			page.Error = answer.Error
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	return operatorTemplate.Execute(w, page)
}

// toolGroup is one group of a domain's tools, as the page shows it.
type toolGroup struct {
	Group string
	Tools []catalogTool
}

// groupedTools are a domain's tools by group, groups in the domain's
// order.
func groupedTools(d catalogDomain) []toolGroup {
	var out []toolGroup
	for _, t := range d.Tools {
		i := slices.IndexFunc(out, func(g toolGroup) bool { return g.Group == t.Group })
		if i < 0 {
			out = append(out, toolGroup{Group: t.Group})
			i = len(out) - 1
		}
		out[i].Tools = append(out[i].Tools, t)
	}
	return out
}

var operatorTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"grouped":   groupedTools,
	"ago":       func(t time.Time) string { return time.Since(t).Round(time.Second).String() },
	"place":     func(i int) int { return i + 1 },
	"join":      strings.Join,
	"mainWords": func() string { return search.MainWords },
	"short":     func(hash string) string { return hash[:min(len(hash), 12)] },
	"changedUpstreams": func(changes []gateway.ToolChange) []string {
		var out []string
		for _, c := range changes {
			if !slices.Contains(out, c.Upstream) {
				out = append(out, c.Upstream)
			}
		}
		return out
	},
}).Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>MCP gateway {{.Gateway.Name}}</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 1.5rem auto; max-width: 72rem; padding: 0 1rem; color: #1b1b1b; }
h1 { font-size: 1.5rem; margin-bottom: .2rem; }
h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .3rem .6rem; border-bottom: 1px solid #eee; vertical-align: top; }
th { background: #f4f4f4; }
.ready { color: #11772d; font-weight: 600; }
.connecting { color: #8a6d00; font-weight: 600; }
.unavailable, .degraded, .closed { color: #b3261e; font-weight: 600; }
.muted { color: #666; }
code { font-size: .92em; }
input[type=search] { width: 28rem; padding: .35rem; font-size: 1rem; }
button { padding: .35rem .9rem; font-size: 1rem; }
details { margin: .3rem 0; }
summary { cursor: pointer; }
pre { background: #f7f7f7; padding: .6rem; overflow-x: auto; }
.why td { background: #fafafa; font-size: .9em; }
.why table { margin: .3rem 0; }
.why ol { margin: .3rem 0; padding-left: 1.4rem; }
</style>
</head>
<body>
<h1>MCP gateway <code>{{.Gateway.Name}}</code></h1>
<p class="muted">{{.Gateway.Domains}} domains, {{.Gateway.Tools}} tools, {{.Gateway.Sessions}} client sessions.
{{if gt (len .Gateways) 1}}Gateways: {{range .Gateways}}<a href="?gateway={{.}}">{{.}}</a> {{end}}{{end}}</p>

<h2 id="upstreams">Upstreams</h2>
<table>
<tr><th>upstream</th><th>transport</th><th>state</th><th>tools</th><th>latency</th><th>reconnects</th><th>lists read</th><th>last error</th></tr>
{{range .Gateway.Upstreams}}<tr>
<td><code>{{.Name}}</code></td><td>{{.Transport}}</td><td class="{{.State}}">{{.State}}</td><td>{{.Tools}}</td>
<td>{{if .LatencyMS}}{{printf "%.1f" .LatencyMS}} ms{{else}}<span class="muted">-</span>{{end}}</td><td>{{.Reconnects}}</td>
<td>{{if .RefreshedAt.IsZero}}<span class="muted">never</span>{{else}}{{ago .RefreshedAt}} ago{{end}}</td><td>{{.LastError}}</td>
</tr>{{end}}
</table>
<form method="post"><input type="hidden" name="action" value="refresh"><p><button type="submit">Refresh upstreams now</button></p></form>
{{range .Gateway.Upstreams}}{{if .Notices}}<details class="notices"><summary><code>{{.Name}}</code>: {{len .Notices}} notice(s) on its lists</summary>
<ul>{{range .Notices}}<li>{{.}}</li>{{end}}</ul></details>{{end}}{{end}}

<h2 id="changes">Tool definition changes</h2>
{{if .Gateway.ToolChanges}}<p class="muted">These tools' definitions differ from the ones pinned when first seen (or last accepted). Review them, then accept the new definitions;
held tools are out of the catalog until then.</p>
<table><tr><th>tool</th><th>upstream</th><th>state</th><th>pinned</th><th>changed</th><th></th></tr>
{{range .Gateway.ToolChanges}}<tr><td><code>{{.Name}}</code></td><td><code>{{.Upstream}}</code></td>
<td>{{if .Held}}<span class="unavailable">held</span>{{else}}flagged{{end}}</td>
<td><code>{{short .PinnedHash}}</code> {{ago .PinnedAt}} ago</td><td><code>{{short .Hash}}</code> {{ago .SeenAt}} ago</td>
<td><form method="post"><input type="hidden" name="action" value="accept"><input type="hidden" name="tool" value="{{.Name}}"><input type="hidden" name="hash" value="{{.Hash}}"><button type="submit">Accept</button></form></td></tr>{{end}}
</table>
{{range changedUpstreams .Gateway.ToolChanges}}<form method="post"><input type="hidden" name="action" value="accept_upstream"><input type="hidden" name="upstream" value="{{.}}"><p><button type="submit">Accept every change of <code>{{.}}</code></button></p></form>{{end}}
{{else}}<p class="muted">None: every tool is as pinned.</p>{{end}}

<h2 id="search">Search as the model does</h2>
<form method="get">
<input type="hidden" name="gateway" value="{{.Gateway.Name}}">
<input type="search" name="q" value="{{.Query}}" placeholder="words, select:a,b or /regex/" aria-label="query">
<label><input type="checkbox" name="explain" value="1"{{if .Explain}} checked{{end}}> explain the ranking</label>
<button type="submit">Search</button>
</form>
{{if .Searched}}
{{if .Error}}<p class="unavailable">{{.Error}}</p>{{else}}
<p>{{len .Results}} result(s) for <code>{{.Query}}</code>.{{if .Note}} <span class="muted">{{.Note}}</span>{{end}}</p>
{{with .Reading}}<div id="reading"><p>Read as: {{range .Words}}<code>{{.Word}}</code> ×{{printf "%.2f" .Weight}}{{if ne .From mainWords}} <span class="muted">({{.From}})</span>{{end}}{{range .Rules}} <span class="muted">({{.}})</span>{{end}}{{if .Required}} <span class="muted">(required)</span>{{end}}; {{end}}</p>
{{if .Signals}}<ul>{{range .Signals}}<li>{{.Signal}}: {{.Read}}</li>{{end}}</ul>{{end}}</div>{{end}}
{{if .Results}}<table id="results"><tr><th>#</th><th>tool</th><th>group</th><th>description</th></tr>
{{range $i, $r := .Results}}<tr><td>{{place $i}}</td><td><code>{{$r.Name}}</code></td><td>{{$r.Group}}</td><td>{{$r.Description}}</td></tr>
{{with $r.Explanation}}<tr class="why"><td></td><td colspan="3">
<p>Score {{printf "%.3f" $r.Score}}: BM25F {{printf "%.3f" .BM25F}} of the words below{{if .Signals}}, then the signals in order{{end}}.{{if .Request}} Found by the ranking of <code>{{.Ranking}}</code>.{{end}}</p>
<table class="words"><tr><th>word</th><th>from</th><th>BM25F</th><th>index terms: how the word matches, weight, fields</th></tr>
{{range .Words}}<tr><td><code>{{.Word}}</code></td><td>{{.From}}</td><td>{{printf "%+.3f" .Score}}</td><td>{{range .Terms}}<code>{{.Term}}</code> {{.Match}}, ×{{printf "%.2f" .Weight}}, in {{join .Fields ", "}}; {{end}}</td></tr>{{end}}
</table>
{{if .Signals}}<ol class="signals">{{range .Signals}}<li>{{.Signal}} {{if .Times}}×{{printf "%.2f" .Times}}{{else}}{{printf "%+.3f" .Add}}{{end}} = {{printf "%.3f" .Score}}: {{.Reason}}</li>{{end}}</ol>{{end}}
{{range .Moves}}<p class="move">{{.Rerank}}: place {{.From}} to {{.To}} (key {{printf "%.3f" .Key}}): {{.Reason}}</p>{{end}}
</td></tr>{{end}}{{end}}
</table>{{end}}{{end}}
<details><summary>the answer the model gets</summary><pre>{{.Raw}}</pre></details>
{{end}}

<h2 id="misses">Searches that found nothing or only weak matches</h2>
{{if .Misses}}<table><tr><th>query</th><th>found</th><th>times</th><th>last</th></tr>
{{range .Misses}}<tr><td><code>{{.Query}}</code></td><td>{{if .Weak}}weak matches{{else}}nothing{{end}}</td><td>{{.Count}}</td><td>{{ago .Last}} ago</td></tr>{{end}}
</table>
<p class="muted">Give the tools models were looking for better descriptions with <code>tool &lt;name&gt; { description ... }</code> in the upstream's block.</p>
{{else}}<p class="muted">None yet.</p>{{end}}

<h2 id="catalog">Catalog</h2>
{{range .Catalog}}<details>
<summary><code>{{.Name}}</code> <span class="{{.State}}">{{.State}}</span> <span class="muted">{{len .Tools}} tools. {{.Description}}</span></summary>
{{range grouped .}}<p><strong>{{if .Group}}{{.Group}}{{else}}(no group){{end}}</strong></p>
<table>{{range .Tools}}<tr><td><code>{{.Name}}</code></td><td>{{.Description}}</td></tr>{{end}}</table>{{end}}
</details>{{end}}
<p class="muted">Generated {{.Generated.Format "2006-01-02 15:04:05 MST"}}.</p>
</body>
</html>
`))
