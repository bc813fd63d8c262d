package gateway

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/caddy-mcp/mcp-gateway/search"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Catalog is an immutable snapshot of every tool the gateway can route to,
// with its search index. A new snapshot replaces it whole when an upstream
// changes, so readers never lock.
type Catalog struct {
	Domains []*Domain // in config order
	Tools   []*Tool   // by domain, then in upstream order

	domains map[string]*Domain // by lower-case name
	byName  map[string]*Tool   // by qualified name
	byBare  map[string][]*Tool // by upstream tool name
	// configured holds the lower-case name of every domain configured,
	// those the catalog's rule hides included (see ownedBy).
	configured map[string]bool
	index      *search.Index
}

// Domain is one upstream as clients see it.
type Domain struct {
	Name string
	// Description is the operator's, else the upstream's instructions; it
	// is searched. Summary is its first line, which listings show.
	Description string
	Summary     string
	State       State
	LastError   error
	Tools       []*Tool
	Groups      []string // in order of first appearance

	// Prompts, Resources and Templates are the upstream's that the
	// catalog's access rule allows (passthrough mode exposes them).
	Prompts   []*mcp.Prompt
	Resources []*mcp.Resource
	Templates []*mcp.ResourceTemplate

	upstream *Upstream
	// status is the upstream's status the catalog was built from, its
	// lists and texts vetted (see vet.go): what passthrough exposes.
	status UpstreamStatus
}

// Tool is one upstream tool as the catalog presents it.
type Tool struct {
	// Name is the qualified name clients use: "domain.tool".
	Name string
	// UpstreamName is the tool's name on its upstream server.
	UpstreamName string
	// LocalName is its name in the catalog without the domain:
	// UpstreamName, or its SEP-986 safe rename (see SafeToolName).
	LocalName string
	Domain    *Domain
	Group     string
	// Description is the operator's override, or the upstream's text.
	Description string
	// Summary is Description cut to one short line.
	Summary string
	// Def is the upstream's definition (schemas, annotations, title) as
	// the model may read it: the description check applied.
	Def *mcp.Tool

	schemaOnce sync.Once
	schema     *jsonschema.Resolved // nil when the input schema does not resolve
}

// allowedItems sets d's prompts, resources and resource templates: the
// upstream's that rule allows.
func allowedItems(d *Domain, st UpstreamStatus, rule AccessRule) {
	for _, p := range st.Prompts {
		if rule.Allows(ItemName(d.Name, "prompt", p.Name)) {
			d.Prompts = append(d.Prompts, p)
		}
	}
	for _, r := range st.Resources {
		if rule.Allows(ItemName(d.Name, "resource", r.URI)) {
			d.Resources = append(d.Resources, r)
		}
	}
	for _, t := range st.ResourceTemplates {
		if rule.Allows(ItemName(d.Name, "template", t.URITemplate)) {
			d.Templates = append(d.Templates, t)
		}
	}
}

// QualifiedName is how a catalog names a domain's tool.
func QualifiedName(domain, tool string) string { return domain + "." + tool }

// domainSource is what a catalog is built from, for one domain: the
// upstream's status and tools, vetted (see vet.go).
type domainSource struct {
	cfg      *UpstreamConfig
	status   UpstreamStatus
	tools    []vettedTool
	upstream *Upstream
}

// buildCatalog makes a snapshot from each domain's config and the last
// lists its upstream sent, holding only what rule allows: the tools,
// prompts, resources and resource templates it allows, and the domains
// with any such item (or, for a domain none of whose items are known yet,
// that it may allow items of: see AccessRule.allowsUnknownDomain). Its
// index has opts.
func buildCatalog(sources []domainSource, rule AccessRule, opts search.Options) *Catalog {
	c := &Catalog{
		domains:    make(map[string]*Domain),
		byName:     make(map[string]*Tool),
		byBare:     make(map[string][]*Tool),
		configured: make(map[string]bool, len(sources)),
	}
	for _, src := range sources {
		c.configured[strings.ToLower(src.cfg.Name)] = true
		var tools []vettedTool
		for _, t := range src.tools {
			if src.cfg.visible(t.upstream) && rule.allowsAny(QualifiedName(src.cfg.Name, t.local), QualifiedName(src.cfg.Name, t.upstream)) {
				tools = append(tools, t)
			}
		}
		d := &Domain{
			Name:        src.cfg.Name,
			Description: domainDescription(src.cfg, src.status),
			State:       src.status.State,
			LastError:   src.status.LastError,
			upstream:    src.upstream,
			status:      src.status,
		}
		allowedItems(d, src.status, rule)
		known := len(src.status.Tools)+len(src.status.Prompts)+len(src.status.Resources)+len(src.status.ResourceTemplates) > 0
		visible := len(tools)+len(d.Prompts)+len(d.Resources)+len(d.Templates) > 0 ||
			(!known && rule.allowsUnknownDomain(src.cfg.Name)) || rule.allowsAll()
		if !visible {
			continue // nothing here for this rule: the domain is hidden too
		}
		d.Summary = summarize(d.Description)
		c.Domains = append(c.Domains, d)
		c.domains[strings.ToLower(d.Name)] = d

		groups := assignGroups(src.cfg, tools)
		for i, vt := range tools {
			desc := vt.def.Description
			if o, ok := src.cfg.Tools[vt.upstream]; ok && o.Description != "" {
				desc = o.Description
			}
			t := &Tool{
				Name:         QualifiedName(d.Name, vt.local),
				UpstreamName: vt.upstream,
				LocalName:    vt.local,
				Domain:       d,
				Group:        groups[i],
				Description:  desc,
				Summary:      summarize(desc),
				Def:          vt.def,
			}
			d.Tools = append(d.Tools, t)
			c.Tools = append(c.Tools, t)
			c.byName[t.Name] = t
			c.byBare[t.LocalName] = append(c.byBare[t.LocalName], t)
			if !containsString(d.Groups, t.Group) {
				d.Groups = append(d.Groups, t.Group)
			}
		}
	}
	docs := make([]search.Document, len(c.Tools))
	for i, t := range c.Tools {
		params := schemaProperties(t.Def.InputSchema)
		docs[i] = search.Document{
			Name:              t.LocalName,
			Title:             strings.TrimPrefix(t.Def.Title, flaggedPrefix),
			Description:       strings.TrimPrefix(t.Description, flaggedPrefix),
			Params:            paramText(params),
			ParamNames:        strings.Join(slices.Sorted(maps.Keys(params)), " "),
			Domain:            t.Domain.Name,
			DomainDescription: t.Domain.Description,
			Group:             t.Group,
		}
	}
	c.index = search.NewIndexWith(docs, opts)
	return c
}

// domainDescription is the operator's description of a domain, else what
// the upstream says of itself (st is vetted: the description check has
// been applied to its texts).
func domainDescription(cfg *UpstreamConfig, st UpstreamStatus) string {
	switch {
	case cfg.Description != "":
		return cfg.Description
	case st.Instructions != "":
		return st.Instructions
	case st.Server != nil && st.Server.Title != "":
		return st.Server.Title
	}
	return ""
}

// visible applies the upstream's allow and deny globs to a tool name.
func (u *UpstreamConfig) visible(tool string) bool {
	if len(u.Allow) > 0 && !matchAny(u.Allow, tool) {
		return false
	}
	return !matchAny(u.Deny, tool)
}

// assignGroups picks each tool's group: the operator's rule (over the
// upstream's names), else the group the upstream declares, else one
// inferred from the tools' names in the catalog.
func assignGroups(cfg *UpstreamConfig, tools []vettedTool) []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.local
	}
	groups := inferGroups(cfg.Name, names)
	for i, t := range tools {
		if g := groupFromMeta(t.def, cfg.Name); g != "" {
			groups[i] = g
		}
		for _, rule := range cfg.Groups {
			if matchAny(rule.Tools, t.upstream) {
				groups[i] = rule.Name
				break
			}
		}
	}
	return groups
}

// Domain returns the domain with this name (case-insensitive), or nil.
func (c *Catalog) Domain(name string) *Domain {
	return c.domains[strings.ToLower(strings.TrimSpace(name))]
}

// DomainNames lists the domain names in config order.
func (c *Catalog) DomainNames() []string {
	names := make([]string, len(c.Domains))
	for i, d := range c.Domains {
		names[i] = d.Name
	}
	return names
}

// HasGroup reports whether the domain has a group of that name
// (case-insensitive) and returns its spelling.
func (d *Domain) HasGroup(name string) (string, bool) {
	for _, g := range d.Groups {
		if strings.EqualFold(g, strings.TrimSpace(name)) {
			return g, true
		}
	}
	return "", false
}

// InputSchema returns the tool's input schema resolved for validation, or
// nil when the upstream's schema cannot be resolved, or validating by it
// might not end (see loopsInPlace): then the upstream alone judges the
// arguments. It is resolved once, on first use.
func (t *Tool) InputSchema() *jsonschema.Resolved {
	t.schemaOnce.Do(func() {
		b, err := json.Marshal(t.Def.InputSchema)
		if err != nil {
			return
		}
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil || loopsInPlace(doc) {
			return
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			return
		}
		if r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: false}); err == nil {
			t.schema = r
		}
	})
	return t.schema
}

// paramText is the text of a schema's parameters (see schemaProperties),
// names and descriptions, for the search index.
func paramText(props map[string]any) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(props)) {
		b.WriteString(name)
		b.WriteByte(' ')
		if p, ok := props[name].(map[string]any); ok {
			if d, ok := p["description"].(string); ok {
				b.WriteString(strings.TrimPrefix(d, flaggedPrefix))
				b.WriteByte(' ')
			}
		}
	}
	return b.String()
}

// schemaProperties is the "properties" object of an input schema (a
// map, or anything that marshals to JSON), nil when it has none.
func schemaProperties(schema any) map[string]any {
	m, ok := schema.(map[string]any)
	if !ok {
		b, err := json.Marshal(schema)
		if err != nil || json.Unmarshal(b, &m) != nil {
			return nil
		}
	}
	props, _ := m["properties"].(map[string]any)
	return props
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
