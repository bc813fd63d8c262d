package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
	"go.uber.org/zap"
)

// exposure is what the MCP server currently exposes directly (passthrough
// and hybrid mode), so that a new catalog changes only what changed, and
// the routes from exposed names and URIs back to upstreams.
type exposure struct {
	tools     map[string]string // exposed name -> signature
	resources map[string]string // URI -> signature
	templates map[string]string // URI template -> signature
	prompts   map[string]string // exposed name -> signature
	reported  map[string]bool   // collisions already logged

	routes     atomic.Pointer[routes]
	collisions atomic.Pointer[[]string]

	subsMu sync.Mutex
	subs   map[string]int // shared-session subscriptions: domain + "\x00" + URI -> clients
}

// routes map what a client names to the upstream that has it.
type routes struct {
	tools     map[string]toolRoute // exposed name ->
	resources map[string]string    // URI -> domain
	templates []templateRoute
	prompts   map[string]toolRoute // exposed name ->
}

type toolRoute struct{ domain, name string }

type templateRoute struct {
	template string
	re       interface{ MatchString(string) bool }
	domain   string
}

// Collisions lists the names two upstreams both expose, as errors naming
// both; the first upstream in config order keeps the name.
func (g *Gateway) Collisions() []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range g.views {
		if c := v.exposed.collisions.Load(); c != nil {
			for _, msg := range *c {
				if !seen[msg] {
					seen[msg] = true
					out = append(out, msg)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// expose brings the server's directly exposed tools, resources, resource
// templates and prompts in line with catalog c: all of them in passthrough
// mode, the pinned tools in hybrid mode. Names are the upstream's prefix
// plus its own name; the first upstream in config order keeps a name two
// upstreams would share. Called with g.rebuildMu held.
func (v *view) expose(c *Catalog) {
	g := v.g
	e := &v.exposed
	if e.tools == nil {
		e.tools, e.resources, e.templates, e.prompts = map[string]string{}, map[string]string{}, map[string]string{}, map[string]string{}
		e.reported = map[string]bool{}
	}
	r := &routes{tools: map[string]toolRoute{}, resources: map[string]string{}, prompts: map[string]toolRoute{}}
	var collisions []string
	owner := map[string]string{} // kind + name -> domain
	claim := func(kind, name, domain string) bool {
		key := kind + "\x00" + name
		if first, taken := owner[key]; taken {
			msg := fmt.Sprintf("%s %q is in both upstream %q and upstream %q; %q keeps it. Give one of them a different prefix.", kind, name, first, domain, first)
			collisions = append(collisions, msg)
			if !e.reported[msg] {
				e.reported[msg] = true
				g.logger.Error("name collision between upstreams", zap.String("detail", msg))
			}
			return false
		}
		owner[key] = domain
		return true
	}

	wantTools := map[string]*mcp.Tool{}
	for _, t := range v.exposedTools(c) {
		name := g.upstreamConfig[t.Domain.Name].EffectivePrefix() + t.UpstreamName
		if !claim("tool", name, t.Domain.Name) {
			continue
		}
		def := *t.Def
		def.Name, def.Description = name, t.Description
		if !validToolSchema(def.InputSchema) {
			g.logger.Warn("not exposing a tool whose input schema is not a JSON object schema", zap.String("tool", t.Name))
			continue
		}
		wantTools[name] = &def
		r.tools[name] = toolRoute{domain: t.Domain.Name, name: t.UpstreamName}
	}
	wantResources := map[string]*mcp.Resource{}
	wantTemplates := map[string]*mcp.ResourceTemplate{}
	wantPrompts := map[string]*mcp.Prompt{}
	if g.cfg.EffectiveMode() == ModePassthrough {
		for _, d := range c.Domains {
			prefix := g.upstreamConfig[d.Name].EffectivePrefix()
			st := d.upstream.Status()
			for _, res := range st.Resources {
				if !claim("resource", res.URI, d.Name) {
					continue
				}
				x := *res
				x.Name = prefix + res.Name
				wantResources[res.URI] = &x
				r.resources[res.URI] = d.Name
			}
			for _, t := range st.ResourceTemplates {
				re, err := uritemplate.New(t.URITemplate)
				if err != nil || !claim("resource template", t.URITemplate, d.Name) {
					continue
				}
				x := *t
				x.Name = prefix + t.Name
				wantTemplates[t.URITemplate] = &x
				r.templates = append(r.templates, templateRoute{template: t.URITemplate, re: re.Regexp(), domain: d.Name})
			}
			for _, p := range st.Prompts {
				name := prefix + p.Name
				if !claim("prompt", name, d.Name) {
					continue
				}
				x := *p
				x.Name = name
				wantPrompts[name] = &x
				r.prompts[name] = toolRoute{domain: d.Name, name: p.Name}
			}
		}
	}
	e.routes.Store(r)
	sort.Strings(collisions)
	e.collisions.Store(&collisions)

	sync := func(have map[string]string, want map[string]any, add func(string, any), remove func([]string)) {
		var gone []string
		for k := range have {
			if _, ok := want[k]; !ok {
				gone = append(gone, k)
			}
		}
		if len(gone) > 0 {
			remove(gone)
			for _, k := range gone {
				delete(have, k)
			}
		}
		for k, x := range want {
			sig := signature(x)
			if have[k] != sig {
				add(k, x)
				have[k] = sig
			}
		}
	}
	sync(e.tools, anyMap(wantTools), func(name string, x any) {
		v.server.AddTool(x.(*mcp.Tool), v.passthroughTool(name))
	}, func(names []string) { v.server.RemoveTools(names...) })
	sync(e.resources, anyMap(wantResources), func(_ string, x any) {
		v.server.AddResource(x.(*mcp.Resource), v.readResource)
	}, func(uris []string) { v.server.RemoveResources(uris...) })
	sync(e.templates, anyMap(wantTemplates), func(_ string, x any) {
		v.server.AddResourceTemplate(x.(*mcp.ResourceTemplate), v.readResource)
	}, func(ts []string) { v.server.RemoveResourceTemplates(ts...) })
	sync(e.prompts, anyMap(wantPrompts), func(name string, x any) {
		v.server.AddPrompt(x.(*mcp.Prompt), v.passthroughPrompt(name))
	}, func(names []string) { v.server.RemovePrompts(names...) })
}

// exposedTools are the catalog tools exposed directly: all of them in
// passthrough mode, the pinned ones in hybrid mode.
func (v *view) exposedTools(c *Catalog) []*Tool {
	if v.g.cfg.EffectiveMode() == ModePassthrough {
		return c.Tools
	}
	var out []*Tool
	for _, pin := range v.g.cfg.Pin {
		if t, err := c.Lookup(pin); err == nil {
			out = append(out, t)
		}
	}
	return out
}

func anyMap[T any](m map[string]*T) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func signature(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// validToolSchema reports whether an input schema is one the MCP server
// accepts: a JSON object with "type": "object".
func validToolSchema(schema any) bool {
	var m map[string]any
	b, err := json.Marshal(schema)
	if err != nil || json.Unmarshal(b, &m) != nil {
		return false
	}
	return m["type"] == "object"
}

// passthroughTool is the handler of an exposed tool: the upstream's tool,
// called in full duplex, its result returned unchanged. A JSON-RPC error
// from the upstream stays one; an upstream that cannot be reached is a
// tool error the model can read.
func (v *view) passthroughTool(name string) mcp.ToolHandler {
	g := v.g
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		g.AwaitStartup(ctx)
		route, ok := v.exposed.routes.Load().tools[name]
		var t *Tool
		if ok {
			if d := v.Catalog().Domain(route.domain); d != nil {
				t = d.tool(route.name)
			}
		}
		if t == nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
		}
		res, err := g.callTool(ctx, req, t, req.Params.Arguments)
		var unavailable *UnavailableError
		switch {
		case errors.As(err, &unavailable):
			return errorResult(ErrUnavailable, unavailableMessage(t)), nil
		case err != nil:
			return nil, err
		}
		if res.Content == nil {
			res.Content = []mcp.Content{}
		}
		return res, nil
	}
}

// readResource reads an exposed resource (or a URI of an exposed
// template) from the upstream that has it.
func (v *view) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	v.g.AwaitStartup(ctx)
	domain, ok := v.exposed.routes.Load().domainOf(req.Params.URI)
	if !ok {
		return nil, &jsonrpc.Error{Code: codeResourceNotFound, Message: fmt.Sprintf("resource %q not found", req.Params.URI)}
	}
	u, err := v.domainUpstream(req.Session, domain)
	if err != nil {
		return nil, err
	}
	params := *req.Params
	params.Meta = forwardedMeta(params.Meta)
	return u.ReadResource(callContext(ctx, req.Extra, v.g.upstreamConfig[domain]), &params)
}

// passthroughPrompt is the handler of an exposed prompt.
func (v *view) passthroughPrompt(name string) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		v.g.AwaitStartup(ctx)
		route, ok := v.exposed.routes.Load().prompts[name]
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", name)}
		}
		u, err := v.domainUpstream(req.Session, route.domain)
		if err != nil {
			return nil, err
		}
		params := *req.Params
		params.Name, params.Meta = route.name, forwardedMeta(params.Meta)
		return u.GetPrompt(callContext(ctx, req.Extra, v.g.upstreamConfig[route.domain]), &params)
	}
}

// complete routes completion/complete to the upstream with the prompt or
// resource template the reference names.
func (v *view) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	v.g.AwaitStartup(ctx)
	r := v.exposed.routes.Load()
	params := *req.Params
	params.Meta = forwardedMeta(params.Meta)
	if req.Params.Ref == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "completion/complete needs a ref"}
	}
	ref := *req.Params.Ref
	params.Ref = &ref
	var domain string
	switch ref.Type {
	case "ref/prompt":
		route, ok := r.prompts[ref.Name]
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", ref.Name)}
		}
		domain, ref.Name = route.domain, route.name
	case "ref/resource":
		for _, t := range r.templates {
			if t.template == ref.URI {
				domain = t.domain
			}
		}
		if d, ok := r.resources[ref.URI]; ok && domain == "" {
			domain = d
		}
		if domain == "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown resource template %q", ref.URI)}
		}
	default:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown reference type %q", ref.Type)}
	}
	u, err := v.domainUpstream(req.Session, domain)
	if err != nil {
		return nil, err
	}
	return u.Complete(callContext(ctx, req.Extra, v.g.upstreamConfig[domain]), &params)
}

// subscribe subscribes the client to a resource's updates upstream. On a
// shared upstream session, subscriptions are counted per URI so that one
// client unsubscribing does not end another's.
func (v *view) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	return v.changeSubscription(ctx, req.Session, req.Params.URI, +1)
}

func (v *view) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	return v.changeSubscription(ctx, req.Session, req.Params.URI, -1)
}

func (v *view) changeSubscription(ctx context.Context, ss *mcp.ServerSession, uri string, delta int) error {
	domain, ok := v.exposed.routes.Load().domainOf(uri)
	if !ok {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown resource %q", uri)}
	}
	u, err := v.domainUpstream(ss, domain)
	if err != nil {
		return err
	}
	if d := v.Catalog().Domain(domain); d == nil || u != d.upstream {
		// The client's own upstream session: its subscriptions are its own.
		if delta > 0 {
			return u.Subscribe(ctx, uri)
		}
		return u.Unsubscribe(ctx, uri)
	}
	e := &v.exposed
	e.subsMu.Lock()
	defer e.subsMu.Unlock()
	if e.subs == nil {
		e.subs = map[string]int{}
	}
	key := domain + "\x00" + uri
	before := e.subs[key]
	after := max(before+delta, 0)
	if (before > 0) != (after > 0) {
		// The shared session's subscription changes with the first
		// client in or the last one out.
		var err error
		if delta > 0 {
			err = u.Subscribe(ctx, uri)
		} else {
			err = u.Unsubscribe(ctx, uri)
		}
		if err != nil {
			return err
		}
	}
	e.subs[key] = after
	return nil
}

// resourceUpdated passes an upstream's resource update to the clients
// subscribed to that URI, in every view.
func (g *Gateway) resourceUpdated(p *mcp.ResourceUpdatedNotificationParams) {
	for _, v := range g.views {
		_ = v.server.ResourceUpdated(context.Background(), p)
	}
}

// domainOf finds the domain that has a resource URI, directly or through
// a template.
func (r *routes) domainOf(uri string) (string, bool) {
	if d, ok := r.resources[uri]; ok {
		return d, true
	}
	for _, t := range r.templates {
		if t.re.MatchString(uri) {
			return t.domain, true
		}
	}
	return "", false
}

// codeResourceNotFound is MCP's error code for an unknown resource.
const codeResourceNotFound = -32002

// domainUpstream is the upstream session a client's request to a domain
// goes through (its own, for a per_client upstream).
func (v *view) domainUpstream(ss *mcp.ServerSession, domain string) (*Upstream, error) {
	d := v.Catalog().Domain(domain)
	if d == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("upstream %q is gone", domain)}
	}
	u, _ := v.g.upstreamFor(ss, d)
	return u, nil
}
