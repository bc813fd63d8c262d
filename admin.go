package mcpgateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/caddyserver/caddy/v2"
)

func init() {
	caddy.RegisterModule(adminAPI{})
}

// adminAPI is the gateway's part of Caddy's admin endpoint, under
// /mcp_gateway/:
//
//	GET  /mcp_gateway/                    every gateway: upstreams' status, sessions, catalog size
//	GET  /mcp_gateway/catalog?gateway=N   the catalog by domain and group
//	GET  /mcp_gateway/search?gateway=N&q=Q[&domain=D&group=G][&explain=1]
//	                                      discover_tools as the model gets it, over the whole catalog;
//	                                      with explain=1, also how the query was read and why each
//	                                      result ranks where it does
//	GET  /mcp_gateway/misses?gateway=N    recent searches that found nothing or only weak matches
//	POST /mcp_gateway/refresh?gateway=N   re-read every upstream's lists; reconnect down ones now
//	GET  /mcp_gateway/tool_changes?gateway=N
//	                                      tools whose definition changed since it was pinned
//	POST /mcp_gateway/<gateway>/tools/<tool>/accept[?hash=H]
//	                                      trust a changed tool's definition (hash: the one reviewed);
//	                                      a tool held by on_tool_change hold is back at once
//	POST /mcp_gateway/<gateway>/upstreams/<upstream>/accept
//	                                      trust every changed tool of an upstream
//
// The operator page (HTML) is served on a site route instead, by
// mcp_gateway_ui: Caddy's admin endpoint refuses browser navigation.
// gateway may be left out when the process runs one gateway.
type adminAPI struct{}

// CaddyModule returns the Caddy module information.
func (adminAPI) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "admin.api.mcp_gateway", New: func() caddy.Module { return new(adminAPI) }}
}

// Routes implements caddy.AdminRouter.
func (a adminAPI) Routes() []caddy.AdminRoute {
	return []caddy.AdminRoute{
		{Pattern: "/mcp_gateway/", Handler: caddy.AdminHandlerFunc(a.serve)},
	}
}

func (a adminAPI) serve(w http.ResponseWriter, r *http.Request) error {
	path := strings.TrimPrefix(r.URL.Path, "/mcp_gateway/")
	if parts := strings.Split(path, "/"); len(parts) == 4 && parts[3] == "accept" {
		return acceptToolChanges(w, r, parts[0], parts[1], parts[2])
	}
	method := http.MethodGet
	if path == "refresh" {
		method = http.MethodPost
	}
	if r.Method != method {
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("%s /mcp_gateway/%s: use %s", r.Method, path, method)}
	}
	if path == "" {
		return writeJSON(w, gatewayReports())
	}
	f, err := chosenGateway(r.URL.Query().Get("gateway"))
	if err != nil {
		return err
	}
	switch path {
	case "catalog":
		return writeJSON(w, catalogReport(f.gw.Catalog()))
	case "search":
		discover := f.gw.Discover
		if explain, err := explainParam(r); err != nil {
			return err
		} else if explain {
			discover = f.gw.DiscoverExplained
		}
		text, _ := discover(r.Context(), discoverArgs(r))
		w.Header().Set("Content-Type", "application/json")
		_, err := w.Write([]byte(text))
		return err
	case "misses":
		return writeJSON(w, f.gw.SearchMisses())
	case "tool_changes":
		return writeJSON(w, toolChanges(f.gw))
	case "refresh":
		f.gw.Refresh()
		return writeJSON(w, map[string]any{"refreshing": f.name})
	}
	return caddy.APIError{HTTPStatus: http.StatusNotFound, Err: fmt.Errorf("no /mcp_gateway/%s; see /mcp_gateway/ for the gateways, and catalog, search, misses, refresh, tool_changes, <gateway>/tools/<tool>/accept, <gateway>/upstreams/<upstream>/accept", path)}
}

// acceptToolChanges serves POST /mcp_gateway/<gateway>/tools/<tool>/accept
// and POST /mcp_gateway/<gateway>/upstreams/<upstream>/accept.
func acceptToolChanges(w http.ResponseWriter, r *http.Request, gatewayName, kind, name string) error {
	if r.Method != http.MethodPost {
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("%s %s: use POST", r.Method, r.URL.Path)}
	}
	f, err := chosenGateway(gatewayName)
	if err != nil {
		return err
	}
	var accepted []gateway.ToolChange
	switch kind {
	case "tools":
		accepted, err = f.gw.AcceptToolChange(name, r.URL.Query().Get("hash"))
	case "upstreams":
		accepted, err = f.gw.AcceptUpstreamToolChanges(name)
	default:
		return caddy.APIError{HTTPStatus: http.StatusNotFound, Err: fmt.Errorf("no /mcp_gateway/%s/%s; accept takes tools/<tool> or upstreams/<upstream>", gatewayName, kind)}
	}
	switch {
	case errors.Is(err, gateway.ErrNoToolChange):
		what := fmt.Sprintf("tool %q", name)
		if kind == "upstreams" {
			what = fmt.Sprintf("tool of upstream %q", name)
		}
		return caddy.APIError{HTTPStatus: http.StatusNotFound, Err: fmt.Errorf("gateway %q has no changed %s; GET /mcp_gateway/tool_changes?gateway=%s lists them", f.name, what, f.name)}
	case err != nil:
		return caddy.APIError{HTTPStatus: http.StatusConflict, Err: err}
	}
	return writeJSON(w, map[string]any{"accepted": accepted})
}

// toolChanges is a gateway's tool changes, never null.
func toolChanges(gw *gateway.Gateway) []gateway.ToolChange {
	if c := gw.ToolChanges(); c != nil {
		return c
	}
	return []gateway.ToolChange{}
}

// discoverArgs are discover_tools arguments from a request's query.
func discoverArgs(r *http.Request) map[string]any {
	args := map[string]any{}
	for param, arg := range map[string]string{"q": "query", "domain": "domain", "group": "group"} {
		if v := r.URL.Query().Get(param); v != "" {
			args[arg] = v
		}
	}
	return args
}

// explainParam reads the explain parameter of a search: absent, or a
// boolean (1, true, 0, false).
func explainParam(r *http.Request) (bool, error) {
	v := r.URL.Query().Get("explain")
	if v == "" {
		return false, nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return false, caddy.APIError{HTTPStatus: http.StatusBadRequest, Err: fmt.Errorf("explain=%q: use explain=1 or explain=0", v)}
	}
	return on, nil
}

// chosenGateway is the gateway named, or the only one.
func chosenGateway(name string) (*frontend, error) {
	all := liveFrontends()
	slices.SortFunc(all, func(a, b *frontend) int { return strings.Compare(a.name, b.name) })
	if name == "" && len(all) == 1 {
		return all[0], nil
	}
	var names []string
	for _, f := range all {
		if f.name == name {
			return f, nil
		}
		names = append(names, f.name)
	}
	if name == "" {
		return nil, caddy.APIError{HTTPStatus: http.StatusBadRequest, Err: fmt.Errorf("this process runs several gateways; name one with ?gateway= (%s)", strings.Join(names, ", "))}
	}
	return nil, caddy.APIError{HTTPStatus: http.StatusNotFound, Err: fmt.Errorf("no gateway named %q; the gateways are: %s", name, strings.Join(names, ", "))}
}

// gatewayReport is what GET /mcp_gateway/ says of one gateway.
type gatewayReport struct {
	Name      string                   `json:"name"`
	Sessions  int                      `json:"client_sessions"`
	Domains   int                      `json:"domains"`
	Tools     int                      `json:"tools"`
	Upstreams []gateway.UpstreamReport `json:"upstreams"`
	Misses    int                      `json:"search_misses"`
	// ToolChanges are the tools whose definition changed since pinned.
	ToolChanges []gateway.ToolChange `json:"tool_changes"`
}

func gatewayReports() []gatewayReport {
	all := liveFrontends()
	slices.SortFunc(all, func(a, b *frontend) int { return strings.Compare(a.name, b.name) })
	out := make([]gatewayReport, 0, len(all))
	for _, f := range all {
		r := gatewayReport{Name: f.name, Sessions: f.gw.SessionCount(), Upstreams: f.gw.Upstreams(), Misses: len(f.gw.SearchMisses()), ToolChanges: toolChanges(f.gw)}
		if c := f.gw.Catalog(); c != nil {
			r.Domains, r.Tools = len(c.Domains), len(c.Tools)
		}
		out = append(out, r)
	}
	return out
}

// catalogDomain and catalogTool are the catalog as GET /mcp_gateway/catalog
// shows it.
type catalogDomain struct {
	Name        string        `json:"name"`
	Description string        `json:"description,omitempty"`
	State       string        `json:"state"`
	Groups      []string      `json:"groups,omitempty"`
	Tools       []catalogTool `json:"tools"`
}

type catalogTool struct {
	Name        string `json:"name"`
	Group       string `json:"group,omitempty"`
	Description string `json:"description"`
}

func catalogReport(c *gateway.Catalog) []catalogDomain {
	if c == nil {
		return []catalogDomain{}
	}
	out := make([]catalogDomain, 0, len(c.Domains))
	for _, d := range c.Domains {
		cd := catalogDomain{Name: d.Name, Description: d.Summary, State: d.State.String(), Groups: d.Groups, Tools: make([]catalogTool, 0, len(d.Tools))}
		for _, t := range d.Tools {
			cd.Tools = append(cd.Tools, catalogTool{Name: t.Name, Group: t.Group, Description: t.Summary})
		}
		out = append(out, cd)
	}
	return out
}

func writeJSON(w http.ResponseWriter, v any) error {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return caddy.APIError{HTTPStatus: http.StatusInternalServerError, Err: errors.New("encoding the answer failed")}
	}
	return nil
}

// Interface guards.
var _ caddy.AdminRouter = adminAPI{}
