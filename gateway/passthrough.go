package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
	"go.uber.org/zap"
)

// exposure is what a view exposes directly (passthrough and hybrid mode):
// the routes from exposed names and URIs back to upstreams, and the names
// two upstreams both claimed.
type exposure struct {
	routes     atomic.Pointer[routes]
	collisions atomic.Pointer[[]string]
	reported   map[string]bool // collisions already logged, under the gateway's rebuildMu

	subsMu sync.Mutex
	subs   map[string]int // shared-session subscriptions: domain + "\x00" + URI -> clients
	// subsOn is the upstream connection each count in subs is counted on
	// (Upstream.CountSubscriber), by the same key: the domain's when its
	// first client came, until a reload moves it (see keepSubscriptions).
	subsOn map[string]*Upstream
}

// registrations is what one MCP server has registered, by signature, so
// that a new catalog changes only what changed.
type registrations struct {
	tools     map[string]string // exposed name -> signature
	resources map[string]string // URI -> signature
	templates map[string]string // URI template -> signature
	prompts   map[string]string // exposed name -> signature
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

// exposed is what a catalog exposes directly in one mode.
type exposed struct {
	routes     *routes
	collisions []string
	tools      map[string]*mcp.Tool
	resources  map[string]*mcp.Resource
	templates  map[string]*mcp.ResourceTemplate
	prompts    map[string]*mcp.Prompt
}

// Collisions lists the names two upstreams both expose, as errors naming
// both (the first upstream in config order keeps the name), and the
// hybrid pins named like a meta-tool (not exposed).
func (g *Gateway) Collisions() []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range g.allViews() {
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

// expose brings the view servers' directly exposed tools, resources,
// resource templates and prompts in line with catalog c: all of them in
// passthrough mode, the pinned tools in hybrid mode, none in meta mode.
// Called with the gateway's rebuildMu held.
func (v *view) expose(s *setup, c *Catalog) {
	mode := s.cfg.EffectiveMode()
	current := v.exposeIn(s, c, mode)
	v.exposed.routes.Store(current.routes)
	v.exposed.collisions.Store(&current.collisions)
	if v.exposed.reported == nil {
		v.exposed.reported = map[string]bool{}
	}
	for _, msg := range current.collisions {
		if !v.exposed.reported[msg] {
			v.exposed.reported[msg] = true
			v.g.logger.Error("name collision between upstreams", zap.String("detail", msg))
		}
	}
	v.mu.Lock()
	servers := append([]*viewServer(nil), v.servers...)
	v.mu.Unlock()
	for _, vs := range servers {
		switch vs.mode {
		case ModeMeta:
		case mode:
			vs.registered.sync(v, vs.server, current)
		default:
			// A server a reload left behind in another mode keeps its
			// sessions' view of the catalog current too.
			vs.registered.sync(v, vs.server, v.exposeIn(s, c, vs.mode))
		}
	}
}

// exposeIn works out what catalog c exposes directly in mode. Names are
// the upstream's prefix plus its own name; the first upstream in config
// order keeps a name two upstreams would share.
func (v *view) exposeIn(s *setup, c *Catalog, mode string) *exposed {
	x := &exposed{
		routes:    &routes{tools: map[string]toolRoute{}, resources: map[string]string{}, prompts: map[string]toolRoute{}},
		tools:     map[string]*mcp.Tool{},
		resources: map[string]*mcp.Resource{},
		templates: map[string]*mcp.ResourceTemplate{},
		prompts:   map[string]*mcp.Prompt{},
	}
	owner := map[string]string{} // kind + name -> domain
	claim := func(kind, name, domain string) bool {
		key := kind + "\x00" + name
		if first, taken := owner[key]; taken {
			x.collisions = append(x.collisions, fmt.Sprintf("%s %q is in both upstream %q and upstream %q; %q keeps it. Give one of them a different prefix.", kind, name, first, domain, first))
			return false
		}
		owner[key] = domain
		return true
	}
	if mode == ModeMeta {
		return x
	}
	for _, t := range exposedTools(s, c, mode) {
		name := s.byName[t.Domain.Name].EffectivePrefix() + t.LocalName
		if mode == ModeHybrid && isMetaTool(name) {
			// Hybrid mode serves the meta-tools beside the pins: a pin
			// of that name would replace one. Passthrough serves none.
			x.collisions = append(x.collisions, fmt.Sprintf("tool %q of upstream %q is the name of a meta-tool; it is not exposed directly. Give the upstream a prefix.", name, t.Domain.Name))
			continue
		}
		if !claim("tool", name, t.Domain.Name) {
			continue
		}
		def := *t.Def
		def.Name, def.Description = name, t.Description
		if !validToolSchema(def.InputSchema) {
			v.g.logger.Warn("not exposing a tool whose input schema is not a JSON object schema", zap.String("tool", t.Name))
			continue
		}
		x.tools[name] = &def
		x.routes.tools[name] = toolRoute{domain: t.Domain.Name, name: t.LocalName}
	}
	if mode != ModePassthrough {
		return x
	}
	for _, d := range c.Domains {
		prefix := s.byName[d.Name].EffectivePrefix()
		for _, res := range d.Resources {
			if !claim("resource", res.URI, d.Name) {
				continue
			}
			r := *res
			r.Name = prefix + res.Name
			x.resources[res.URI] = &r
			x.routes.resources[res.URI] = d.Name
		}
		for _, t := range d.Templates {
			re, err := uritemplate.New(t.URITemplate)
			if err != nil || !claim("resource template", t.URITemplate, d.Name) {
				continue
			}
			r := *t
			r.Name = prefix + t.Name
			x.templates[t.URITemplate] = &r
			x.routes.templates = append(x.routes.templates, templateRoute{template: t.URITemplate, re: re.Regexp(), domain: d.Name})
		}
		for _, p := range d.Prompts {
			name := prefix + p.Name
			if !claim("prompt", name, d.Name) {
				continue
			}
			r := *p
			r.Name = name
			x.prompts[name] = &r
			x.routes.prompts[name] = toolRoute{domain: d.Name, name: p.Name}
		}
	}
	sort.Strings(x.collisions)
	return x
}

// sync registers on server what x exposes and is not registered yet (or
// changed), and removes what it no longer exposes.
func (r *registrations) sync(v *view, server *mcp.Server, x *exposed) {
	if r.tools == nil {
		r.tools, r.resources, r.templates, r.prompts = map[string]string{}, map[string]string{}, map[string]string{}, map[string]string{}
	}
	syncKind(r.tools, anyMap(x.tools), func(name string, t any) {
		server.AddTool(t.(*mcp.Tool), reachHandler(v.passthroughTool(name)))
	}, func(names []string) { server.RemoveTools(names...) })
	syncKind(r.resources, anyMap(x.resources), func(_ string, res any) {
		server.AddResource(res.(*mcp.Resource), v.readResource)
	}, func(uris []string) { server.RemoveResources(uris...) })
	syncKind(r.templates, anyMap(x.templates), func(_ string, t any) {
		server.AddResourceTemplate(t.(*mcp.ResourceTemplate), v.readResource)
	}, func(ts []string) { server.RemoveResourceTemplates(ts...) })
	syncKind(r.prompts, anyMap(x.prompts), func(name string, p any) {
		server.AddPrompt(p.(*mcp.Prompt), v.passthroughPrompt(name))
	}, func(names []string) { server.RemovePrompts(names...) })
}

// syncKind adds what want has that have lacks (or has with another
// signature) and removes what have has that want lacks.
func syncKind(have map[string]string, want map[string]any, add func(string, any), remove func([]string)) {
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

// exposedTools are the catalog tools exposed directly: all of them in
// passthrough mode, the pinned ones in hybrid mode.
func exposedTools(s *setup, c *Catalog, mode string) []*Tool {
	if mode == ModePassthrough {
		return c.Tools
	}
	var out []*Tool
	for _, pin := range s.cfg.Pin {
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
// from the upstream stays one; an upstream that cannot be reached, or
// does not answer within the call's timeout, is a tool error the model
// can read.
func (v *view) passthroughTool(name string) mcp.ToolHandler {
	g := v.g
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, _ error) {
		v := g.requestView(req, v)
		start := time.Now()
		var t *Tool
		failure := string(ErrUpstream) // the outcome when a JSON-RPC error is returned
		defer func() { g.observeCall(ctx, req, t, req.Params.Arguments, res, failure, start) }()
		g.AwaitStartup(ctx)
		route, ok := v.exposed.routes.Load().tools[name]
		if ok {
			if d := v.Catalog().Domain(route.domain); d != nil {
				t = d.tool(route.name)
			}
		}
		if t == nil {
			failure = string(ErrUnknownTool)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
		}
		res, err := g.callTool(ctx, req, t, req.Params.Arguments)
		var unavailable *UnavailableError
		var busy *BusyError
		var refused refusal
		var unasked unanswered
		switch {
		case errors.As(err, &refused):
			// The gateway's own refusal (a request state it does not
			// accept, a capability the caller lacks, an upstream asking
			// without end): whose failure it says.
			failure = string(refused.outcome)
			return nil, upstreamAnswer(err)
		case errors.As(err, &unasked) && ctx.Err() == nil:
			// The caller did not answer a question it was asked: its
			// failure, not the upstream's.
			failure = string(ErrInvalidArguments)
			return nil, upstreamAnswer(err)
		case errors.As(err, &unavailable):
			return errorResult(ErrUnavailable, unavailableMessage(t, unavailable.State)), nil
		case errors.As(err, &busy):
			return errorResult(ErrBusy, busyMessage(t, busy)), nil
		case err != nil && undecodable(err):
			g.logger.Warn("upstream answer could not be read", zap.String("tool", t.Name), errField(err))
			return errorResult(ErrUpstream, undecodableMessage(t, err)), nil
		case err != nil && ctx.Err() == nil && answeredError(err) == nil && errors.Is(err, context.DeadlineExceeded):
			// The upstream did not answer within the call's timeout: a
			// tool error that says which, as execute_tool's does.
			return g.callError(ctx, t, err), nil
		case err != nil:
			failure = string(upstreamErrorCode(err))
			return nil, upstreamAnswer(err)
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
	v = v.g.requestView(req, v)
	v.g.AwaitStartup(ctx)
	domain, ok := v.resourceDomain(req.Params.URI)
	if !ok {
		return nil, resourceNotFound(req.Params.URI)
	}
	u, err := v.domainUpstream(req, domain)
	if err != nil {
		return nil, err
	}
	params := *req.Params
	params.Meta = forwardedMeta(params.Meta)
	x := v.g.exchange(req, declaredCapabilities(req.Params.Meta, req.ClientCapabilities), req.ProtocolVersion(), "resources/read", domain, params.URI, nil)
	round, err := x.prepare(u, &params.Meta, req.Params.RequestState)
	if err != nil {
		return nil, err
	}
	answers, err := x.urlRetry(round, req.Params.InputResponses)
	if err != nil {
		return nil, err
	}
	ctx = v.g.callContext(ctx, req.Extra, v.g.current().byName[domain])
	rounds := 0
	res, err := follow(ctx, x, answers, round.Upstream, func(answers mcp.InputResponseMap, state string) (*mcp.ReadResourceResult, error) {
		if rounds++; rounds > 1 {
			// The retry with the caller's answers goes as a new read
			// would, after any reload meanwhile (see callTool).
			if d, ok := v.resourceDomain(params.URI); !ok || d != domain {
				return nil, resourceNotFound(params.URI)
			}
			if u, err = v.domainUpstream(req, domain); err != nil {
				return nil, err
			}
		}
		p := params
		p.InputResponses, p.RequestState = answers, state
		return u.ReadResource(ctx, &p)
	})
	if res != nil {
		res.Meta = withoutReservedMeta(res.Meta)
	}
	res, err = urlAnswer(ctx, x, round, u.redact, res, err, func(reqs mcp.InputRequestMap, state string) *mcp.ReadResourceResult {
		return &mcp.ReadResourceResult{InputRequests: reqs, RequestState: state}
	})
	return res, upstreamAnswer(err)
}

// upstreamAnswer returns, for an error that holds a JSON-RPC error the
// upstream answered with, that error as the upstream sent it (code,
// message and data: the SDK would otherwise keep only the code, under its
// own message), so that a passthrough client reads what the server said;
// any other error as it is.
func upstreamAnswer(err error) error {
	if wire := answeredError(err); wire != nil {
		answer := *wire
		return &answer
	}
	return err
}

// answeredError finds, depth first, a JSON-RPC error in err's tree that the
// upstream answered with (see peerAnswered), or nil; under a redacted
// error, its redacted copy.
func answeredError(err error) *jsonrpc.Error {
	if wire, ok := err.(*jsonrpc.Error); ok && wire.Code != codeRejectedByTransport {
		return wire
	}
	if red, ok := err.(*redactedError); ok && red.answer != nil {
		return red.answer
	}
	switch e := err.(type) {
	case interface{ Unwrap() error }:
		if inner := e.Unwrap(); inner != nil {
			return answeredError(inner)
		}
	case interface{ Unwrap() []error }:
		for _, inner := range e.Unwrap() {
			if wire := answeredError(inner); wire != nil {
				return wire
			}
		}
	}
	return nil
}

// resourceNotFound is the error for a resource URI the view does not
// serve: the SDK's own, as it answers a URI no resource or template
// covers, so that a hidden resource reads exactly as one that does not
// exist.
func resourceNotFound(uri string) error {
	return mcp.ResourceNotFoundError(uri)
}

// passthroughPrompt is the handler of an exposed prompt.
func (v *view) passthroughPrompt(name string) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		v := v.g.requestView(req, v)
		v.g.AwaitStartup(ctx)
		route, ok := v.exposed.routes.Load().prompts[name]
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", name)}
		}
		u, err := v.domainUpstream(req, route.domain)
		if err != nil {
			return nil, err
		}
		params := *req.Params
		params.Name, params.Meta = route.name, forwardedMeta(params.Meta)
		args, _ := json.Marshal(req.Params.Arguments) // a map of strings: it always encodes
		x := v.g.exchange(req, declaredCapabilities(req.Params.Meta, req.ClientCapabilities), req.ProtocolVersion(), "prompts/get", route.domain, route.name, args)
		round, err := x.prepare(u, &params.Meta, req.Params.RequestState)
		if err != nil {
			return nil, err
		}
		answers, err := x.urlRetry(round, req.Params.InputResponses)
		if err != nil {
			return nil, err
		}
		ctx = v.g.callContext(ctx, req.Extra, v.g.current().byName[route.domain])
		rounds := 0
		res, err := follow(ctx, x, answers, round.Upstream, func(answers mcp.InputResponseMap, state string) (*mcp.GetPromptResult, error) {
			if rounds++; rounds > 1 {
				// The retry with the caller's answers goes as a new request
				// would, after any reload meanwhile (see callTool).
				if now, ok := v.exposed.routes.Load().prompts[name]; !ok || now != route {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", name)}
				}
				if u, err = v.domainUpstream(req, route.domain); err != nil {
					return nil, err
				}
			}
			p := params
			p.InputResponses, p.RequestState = answers, state
			return u.GetPrompt(ctx, &p)
		})
		if res != nil {
			res.Meta = withoutReservedMeta(res.Meta)
		}
		res, err = urlAnswer(ctx, x, round, u.redact, res, err, func(reqs mcp.InputRequestMap, state string) *mcp.GetPromptResult {
			return &mcp.GetPromptResult{InputRequests: reqs, RequestState: state}
		})
		return res, upstreamAnswer(err)
	}
}

// complete routes completion/complete to the upstream with the prompt or
// resource template the reference names.
func (v *view) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	v = v.g.requestView(req, v)
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
	u, err := v.domainUpstream(req, domain)
	if err != nil {
		return nil, err
	}
	res, err := u.Complete(v.g.callContext(ctx, req.Extra, v.g.current().byName[domain]), &params)
	if err == nil && res != nil && ref.Type == "ref/resource" {
		v.dropHiddenCompletions(domain, req.Params, res)
	}
	return res, upstreamAnswer(err)
}

// dropHiddenCompletions removes from a template's completions the values
// that would make the URI of a resource the view's rule hides (see
// hidesURI), when the value and the completion's context give every
// variable of the template.
func (v *view) dropHiddenCompletions(domain string, params *mcp.CompleteParams, res *mcp.CompleteResult) {
	tmpl, err := uritemplate.New(params.Ref.URI)
	if err != nil {
		return
	}
	known := map[string]string{}
	if params.Context != nil {
		maps.Copy(known, params.Context.Arguments)
	}
	kept := res.Completion.Values[:0]
	dropped := 0
	for _, value := range res.Completion.Values {
		known[params.Argument.Name] = value
		vals := uritemplate.Values{}
		complete := true
		for _, name := range tmpl.Varnames() {
			val, ok := known[name]
			if !ok {
				complete = false
				break
			}
			vals.Set(name, uritemplate.String(val))
		}
		if complete {
			if uri, err := tmpl.Expand(vals); err == nil && v.hidesURI(domain, uri) {
				dropped++
				continue
			}
		}
		kept = append(kept, value)
	}
	res.Completion.Values = kept
	if res.Completion.Total > 0 {
		res.Completion.Total = max(0, res.Completion.Total-dropped)
	}
}

// subscribe subscribes the client to a resource's updates upstream. On a
// shared upstream session, subscriptions are counted per URI so that one
// client unsubscribing does not end another's.
func (v *view) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	return v.changeSubscription(ctx, req, req.Params.URI, +1)
}

func (v *view) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	return v.changeSubscription(ctx, req, req.Params.URI, -1)
}

func (v *view) changeSubscription(ctx context.Context, req mcp.Request, uri string, delta int) error {
	v = v.g.requestView(req, v)
	if delta < 0 {
		// Counting out is cleanup, and must happen however the request
		// that asks for it ends: the SDK counts a subscriptions/listen
		// stream's resources out with the stream's own context, which is
		// done by then (the upstream call is still bounded by its timeout).
		ctx = context.WithoutCancel(ctx)
	}
	domain, ok := v.resourceDomain(uri)
	if !ok {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown resource %q", uri)}
	}
	u, err := v.domainUpstream(req, domain)
	if err != nil {
		return err
	}
	if d := v.Catalog().Domain(domain); d == nil || u != d.upstream {
		// The client's own upstream session: its subscriptions are its own.
		if delta > 0 {
			err = u.Subscribe(ctx, uri)
		} else {
			err = u.Unsubscribe(ctx, uri)
		}
		if err == nil {
			v.g.noteOwnSubscription(req, u, domain, uri, delta > 0)
		}
		return err
	}
	ss, _ := req.GetSession().(*mcp.ServerSession)
	var st *clientState
	sub := sharedSubscription{view: v, domain: domain, uri: uri}
	if ss != nil {
		// Each client counts once per URI, however often it subscribes,
		// and is counted out when its session ends.
		if st = v.g.clientState(ss); st == nil {
			return nil // the gateway is closing
		}
		st.mu.Lock()
		had := st.subscriptions[sub]
		switch {
		case delta > 0 && !had:
			if st.subscriptions == nil {
				st.subscriptions = map[sharedSubscription]bool{}
			}
			st.subscriptions[sub] = true
		case delta < 0 && had:
			delete(st.subscriptions, sub)
		default:
			st.mu.Unlock()
			return nil
		}
		st.mu.Unlock()
	}
	err = v.countSubscriber(ctx, domain, uri, delta)
	if err != nil && st != nil && delta > 0 {
		// Not counted in: nothing to count out when the client leaves.
		st.mu.Lock()
		delete(st.subscriptions, sub)
		st.mu.Unlock()
	}
	return err
}

// countSubscriber counts a client in (delta > 0) or out of the
// subscribers to uri of domain on the domain's shared upstream session:
// the view's count routes the upstream's updates (sharedResourceUpdated),
// the upstream's, which every view and gateway sharing the session adds
// to, subscribes the session with the first client in and unsubscribes it
// with the last one out (Upstream.CountSubscriber). A client is counted
// out of the connection it was counted on, and not at all if a reload
// ended the subscription since (keepSubscriptions); counting out always
// succeeds: an upstream that cannot be told (it is down) is logged.
func (v *view) countSubscriber(ctx context.Context, domain, uri string, delta int) error {
	e := &v.exposed
	e.subsMu.Lock()
	defer e.subsMu.Unlock()
	key := domain + "\x00" + uri
	u := e.subsOn[key]
	if u == nil {
		if delta < 0 {
			return nil
		}
		d := v.Catalog().Domain(domain)
		if d == nil || d.upstream == nil {
			return nil
		}
		u = d.upstream
	}
	if err := u.CountSubscriber(ctx, uri, delta); err != nil {
		if delta > 0 {
			return err
		}
		v.g.logger.Warn("unsubscribing the upstream from a resource no client of it is subscribed to any more", zap.String("upstream", domain), errField(err))
	}
	if e.subs == nil {
		e.subs, e.subsOn = map[string]int{}, map[string]*Upstream{}
	}
	if after := max(e.subs[key]+delta, 0); after == 0 {
		delete(e.subs, key) // a client may subscribe to any URI a template covers
		delete(e.subsOn, key)
	} else {
		e.subs[key], e.subsOn[key] = after, u
	}
	return nil
}

// resourceDomain finds the domain whose resource a request may read (or
// subscribe to) at uri: one the view shows, or a URI of a template it
// shows that its rule does not hide (see hidesURI).
func (v *view) resourceDomain(uri string) (string, bool) {
	domain, viaTemplate, ok := v.exposed.routes.Load().domainOf(uri)
	if !ok || (viaTemplate && v.hidesURI(domain, uri)) {
		return "", false
	}
	return domain, true
}

// hidesURI reports whether the view's rule hides the resource at uri of
// domain: a deny glob names it, or the upstream lists it and the rule does
// not allow it, by any spelling of it (uriSpellings). A template the rule
// shows gives every URI it covers but those: it does not open a way to
// what the rule hides.
func (v *view) hidesURI(domain, uri string) bool {
	rule := v.rule.Load()
	if rule == nil || v.operator {
		return false
	}
	for _, spelling := range uriSpellings(uri) {
		if rule.denies(ItemName(domain, "resource", spelling)) {
			return true
		}
	}
	if d := v.g.Catalog().Domain(domain); d != nil {
		for _, r := range d.Resources {
			if sameResource(r.URI, uri) && !rule.Allows(ItemName(domain, "resource", r.URI)) {
				return true
			}
		}
	}
	return false
}

// domainOf finds the domain that has a resource URI, directly or through
// a template (viaTemplate).
func (r *routes) domainOf(uri string) (domain string, viaTemplate, ok bool) {
	if d, ok := r.resources[uri]; ok {
		return d, false, true
	}
	for _, t := range r.templates {
		if t.re.MatchString(uri) {
			return t.domain, true, true
		}
	}
	return "", false, false
}

// domainUpstream is the upstream session a client's request to a domain
// goes through (its own, for a per_client upstream).
func (v *view) domainUpstream(req mcp.Request, domain string) (*Upstream, error) {
	d := v.Catalog().Domain(domain)
	if d == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("upstream %q is gone", domain)}
	}
	u, _, err := v.g.upstreamFor(req, d)
	return u, err
}
