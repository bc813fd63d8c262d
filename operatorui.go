package mcpgateway

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	caddy.RegisterModule(OperatorUI{})
	httpcaddyfile.RegisterHandlerDirective("mcp_gateway_ui", parseOperatorUI)
	httpcaddyfile.RegisterDirectiveOrder("mcp_gateway_ui", httpcaddyfile.Before, "reverse_proxy")
}

// OperatorUI serves the operator page of a gateway this process runs: its
// upstreams' health (with a button to refresh them), the tools whose
// definition changed since pinned (with buttons to accept them), its
// catalog by domain and group, a search box that runs the search the model gets, and the
// searches that found nothing or only weak matches. It is plain HTML, no
// script. Mount it on a route behind Caddy authentication:
//
//	handle /ops* {
//		basic_auth { admin <hash> }
//		mcp_gateway_ui [<gateway name>]
//	}
//
// Without a gateway name it shows the only gateway, or the one named by
// ?gateway=.
type OperatorUI struct {
	// Gateway names the gateway (mcp_gateway's name) to show.
	Gateway string `json:"gateway,omitempty"`

	crossOrigin *http.CrossOriginProtection
}

// CaddyModule returns the Caddy module information.
func (OperatorUI) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.mcp_gateway_ui", New: func() caddy.Module { return new(OperatorUI) }}
}

// Provision sets up the refresh form's cross-site request protection.
func (u *OperatorUI) Provision(caddy.Context) error {
	u.crossOrigin = http.NewCrossOriginProtection()
	return nil
}

// ServeHTTP serves the page (GET), or refreshes the upstreams (POST with
// action=refresh), or accepts changed tool definitions (action=accept
// with tool and hash, action=accept_upstream with upstream), and sends
// the browser back to the page.
func (u *OperatorUI) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	name := u.Gateway
	if name == "" {
		name = r.URL.Query().Get("gateway")
	}
	f, err := chosenGateway(name)
	if err != nil {
		if apiErr, ok := err.(caddy.APIError); ok {
			return caddyhttp.Error(apiErr.HTTPStatus, apiErr.Err)
		}
		return caddyhttp.Error(http.StatusInternalServerError, err)
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return serveOperatorPage(w, r, f)
	case http.MethodPost:
		if err := u.crossOrigin.Check(r); err != nil {
			return caddyhttp.Error(http.StatusForbidden, err)
		}
		var err error
		switch r.PostFormValue("action") {
		case "refresh":
			f.gw.Refresh()
		case "accept":
			_, err = f.gw.AcceptToolChange(r.PostFormValue("tool"), r.PostFormValue("hash"))
		case "accept_upstream":
			_, err = f.gw.AcceptUpstreamToolChanges(r.PostFormValue("upstream"))
		default:
			return caddyhttp.Error(http.StatusBadRequest, errUnknownAction)
		}
		switch {
		case errors.Is(err, gateway.ErrNoToolChange):
			return caddyhttp.Error(http.StatusNotFound, err)
		case err != nil:
			return caddyhttp.Error(http.StatusConflict, err)
		}
		back := url.URL{Path: r.URL.Path, RawQuery: url.Values{"gateway": {f.name}}.Encode()}
		http.Redirect(w, r, back.String(), http.StatusSeeOther)
		return nil
	}
	w.Header().Set("Allow", "GET, HEAD, POST")
	return caddyhttp.Error(http.StatusMethodNotAllowed, errUnknownAction)
}

var errUnknownAction = errors.New("the operator page takes GET, and POST with action=refresh, accept (tool, hash) or accept_upstream (upstream)")

// parseOperatorUI parses `mcp_gateway_ui [<gateway name>]`.
func parseOperatorUI(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	u := new(OperatorUI)
	return u, u.UnmarshalCaddyfile(h.Dispenser)
}

// UnmarshalCaddyfile sets up the page from `mcp_gateway_ui [<gateway name>]`.
func (u *OperatorUI) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive
	if d.NextArg() {
		u.Gateway = d.Val()
	}
	if d.NextArg() {
		return d.ArgErr()
	}
	if d.NextBlock(0) {
		return d.Errf("mcp_gateway_ui takes no block; give the gateway's name as its argument")
	}
	return nil
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*OperatorUI)(nil)
	_ caddyhttp.MiddlewareHandler = (*OperatorUI)(nil)
	_ caddyfile.Unmarshaler       = (*OperatorUI)(nil)
)
