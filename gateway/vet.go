package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// Vetting is what the gateway does with an upstream's lists before any
// catalog holds them: each step is the operator's protection against an
// upstream, and each is reported (logged once, and listed in the
// upstream's report) when it acts.
//
//  1. Bounds: of the tools listed, the first MaxToolsPerUpstream are
//     taken; a name listed twice keeps its first definition; a tool whose
//     definition is over MaxToolSize is left out.
//  2. Names: a name outside SEP-986 is renamed (SafeToolName); a rename
//     that would take another tool's name is left out. A group name a
//     tool declares with a control or invisible character in it is not
//     taken (usableGroupName).
//  3. Pins: a tool whose definition differs from its pin is reported, and
//     under OnToolChangeHold left out until accepted.
//  4. The description check (DescriptionCheck*) over every text of the
//     tools, prompts, resources and resource templates, and the
//     upstream's instructions and title.

// vettedTool is one upstream tool as a catalog may take it.
type vettedTool struct {
	def      *mcp.Tool // the definition the model may read: the description check applied
	upstream string    // its name on the upstream
	local    string    // its name in the catalog, without the domain (SafeToolName)
	findings []finding // where the description check found instruction-like text
}

// toolFacts are what is costly to work out of one upstream tool
// definition; they hold as long as the upstream lists that definition.
type toolFacts struct {
	size    int64  // bytes of its JSON
	hash    string // toolHash
	checked checkedTool
}

// itemFacts is a checked prompt, resource or resource template.
type itemFacts struct {
	item     any // nil: left out
	findings []finding
}

// vetCache keeps facts across rebuilds, for one description check mode.
type vetCache struct {
	mode  string
	tools map[*mcp.Tool]*toolFacts
	items map[any]itemFacts
}

// newVetCache is an empty cache for a rebuild under mode; the rebuild
// takes from the last one's cache the facts it still needs, so the cache
// holds only what the upstreams list now.
func newVetCache(mode string) *vetCache {
	return &vetCache{mode: mode, tools: map[*mcp.Tool]*toolFacts{}, items: map[any]itemFacts{}}
}

func (c *vetCache) toolFacts(old *vetCache, def *mcp.Tool) *toolFacts {
	if f := c.tools[def]; f != nil {
		return f
	}
	f := old.cachedTool(c.mode, def)
	if f == nil {
		size := int64(0)
		if b, err := json.Marshal(def); err == nil {
			size = int64(len(b))
		}
		f = &toolFacts{size: size, hash: toolHash(def), checked: checkTool(def, c.mode)}
	}
	c.tools[def] = f
	return f
}

func (c *vetCache) cachedTool(mode string, def *mcp.Tool) *toolFacts {
	if c == nil || c.mode != mode {
		return nil
	}
	return c.tools[def]
}

// item checks a prompt, resource or resource template, through the cache.
func (c *vetCache) item(old *vetCache, key any, check func() (any, []finding)) itemFacts {
	if f, ok := c.items[key]; ok {
		return f
	}
	f, ok := itemFacts{}, false
	if old != nil && old.mode == c.mode {
		f, ok = old.items[key]
	}
	if !ok {
		f.item, f.findings = check()
	}
	c.items[key] = f
	return f
}

// vetSources vets every upstream's lists (see above) and returns what
// catalogs are built from. Called with rebuildMu held.
func (g *Gateway) vetSources(s *setup) []domainSource {
	mode := s.descriptionCheck()
	old := g.vetCache
	cache := newVetCache(mode)
	sources := make([]domainSource, len(s.upstreams))
	notices := make(map[string]map[string]bool, len(s.upstreams))
	reports := make(map[string][]string, len(s.upstreams))
	for i, u := range s.upstreams {
		cfg := s.cfg.Upstreams[i]
		st := u.Status()
		tools, status, upstreamNotices := g.vetUpstream(s, cfg, st, cache, old)
		sources[i] = domainSource{cfg: cfg, status: status, tools: tools, upstream: u}
		seen := map[string]bool{}
		texts := make([]string, 0, min(len(upstreamNotices), maxNotices))
		for _, n := range upstreamNotices {
			seen[n.text] = true
			if !g.noticed[cfg.Name][n.text] {
				log := g.logger.Info
				if n.warn {
					log = g.logger.Warn
				}
				log(n.text, zap.String("upstream", cfg.Name))
			}
			if len(texts) < maxNotices {
				texts = append(texts, n.text)
			}
		}
		notices[cfg.Name] = seen
		reports[cfg.Name] = texts
	}
	g.noticed = notices
	g.vetCache = cache
	g.notices.Store(&reports)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := g.pins.store(ctx); err != nil {
		g.logger.Error("storing tool pins", zap.Error(err))
	}
	return sources
}

// A notice is what vetting did to an upstream's lists, for the operator.
type notice struct {
	text string
	warn bool // else info
}

// maxNotices bounds the notices kept for an upstream's report.
const maxNotices = 50

// vetUpstream vets one upstream's lists: the tools a catalog may take,
// the status with its other lists and texts checked, and the notices.
func (g *Gateway) vetUpstream(s *setup, cfg *UpstreamConfig, st UpstreamStatus, cache, old *vetCache) ([]vettedTool, UpstreamStatus, []notice) {
	var notices []notice
	add := func(warn bool, text string) {
		notices = append(notices, notice{text: text, warn: warn})
	}
	limit, sizeLimit := s.cfg.ToolLimit(), s.cfg.ToolSizeLimit()
	hold := s.cfg.OnToolChange == OnToolChangeHold

	// Bounds: the first limit tools listed (the connection keeps one
	// more, see SetToolLimit, so a longer list shows).
	listed := st.Tools
	if limit > 0 && len(listed) > limit {
		listed = listed[:limit]
		add(true, fmt.Sprintf("the upstream lists more than %d tools; those past max_tools_per_upstream (%d) are left out", limit, limit))
	}
	seen := make(map[string]bool, len(listed))
	var kept []*mcp.Tool
	for _, def := range listed {
		if seen[def.Name] {
			add(true, fmt.Sprintf("tool %s is listed twice; the first definition is used", quotedName(def.Name)))
			continue
		}
		seen[def.Name] = true
		if size, ok := oversizedSize(def); ok {
			add(true, fmt.Sprintf("tool %s left out: its definition is %d bytes, over max_tool_size (%d)", quotedName(def.Name), size, sizeLimit))
			continue
		}
		if f := cache.toolFacts(old, def); sizeLimit > 0 && f.size > sizeLimit {
			add(true, fmt.Sprintf("tool %s left out: its definition is %d bytes, over max_tool_size (%d)", quotedName(def.Name), f.size, sizeLimit))
			continue
		}
		kept = append(kept, def)
	}

	if n := st.OversizedItems; n > 0 {
		add(true, fmt.Sprintf("%d resources, resource templates or prompts left out: each is over max_tool_size (%d bytes of JSON)", n, sizeLimit))
	}

	// Names, pins and the description check.
	used := make(map[string]bool, len(kept))
	for _, def := range kept {
		if ValidToolName(def.Name) {
			used[def.Name] = true
		}
	}
	now := time.Now()
	var tools []vettedTool
	for _, def := range kept {
		f := cache.toolFacts(old, def)
		local := def.Name
		if !ValidToolName(def.Name) {
			local = SafeToolName(def.Name)
			if used[local] {
				add(true, fmt.Sprintf("tool %s left out: its safe name %s is another tool's", quotedName(def.Name), local))
				continue
			}
			used[local] = true
			add(false, fmt.Sprintf("tool %s is listed as %s (a tool name is 1 to %d letters, digits, '_', '-' or '.')", quotedName(def.Name), local, MaxToolNameLength))
		}
		name := QualifiedName(cfg.Name, local)
		if change, isNew := g.pins.observe(cfg.Name, def.Name, name, f.hash, hold, now); change != nil {
			if isNew {
				g.logger.Warn("upstream changed a tool's definition since it was pinned; accept it with POST /mcp_gateway/<gateway>/tools/<tool>/accept on the admin API, or the operator page",
					zap.String("upstream", cfg.Name), zap.String("tool", name), zap.String("pinned_hash", change.PinnedHash),
					zap.String("hash", change.Hash), zap.Bool("held", change.Held))
				if o, ok := s.observer.(ToolChangeObserver); ok {
					o.ToolChanged(cfg.Name, local)
				}
			}
			if change.Held {
				continue
			}
		}
		c := f.checked
		findings := c.findings
		if o, ok := cfg.Tools[def.Name]; ok && o.Description != "" {
			// The operator's description replaces the upstream's.
			findings = slices.DeleteFunc(slices.Clone(findings), func(f finding) bool { return f == "description" })
		}
		if len(findings) > 0 {
			outcome := "description_check " + cache.mode + " applies"
			if c.def == nil {
				outcome = "the tool is left out (description_check strip; a name cannot be stripped)"
			}
			add(true, fmt.Sprintf("tool %s: upstream text reads like instructions to the model (tool poisoning?) in %s; %s; override a description with a `tool` block if it is fine",
				name, listFindings(findings), outcome))
		}
		if c.def == nil {
			continue // strip: a name was the offence
		}
		if i := slices.IndexFunc(metaGroupNames(def), unprintableGroupName); i >= 0 {
			add(true, fmt.Sprintf("tool %s: its group %s (_meta %s) is not taken: a group name is printable text, without control or invisible characters; the tool is grouped by its name",
				name, quotedName(metaGroupNames(def)[i]), metaGroupsKey))
		}
		tools = append(tools, vettedTool{def: c.def, upstream: def.Name, local: local, findings: c.findings})
	}

	if text := chineseToolsNotice(cfg, tools); text != "" {
		add(true, text)
	}

	g.pins.forget(cfg.Name, seen, 2*max(limit, DefaultMaxToolsPerUpstream))

	// The other lists and texts.
	st.Resources = withPrintableNames(st.Resources, "resource", resourceNames, add)
	st.ResourceTemplates = withPrintableNames(st.ResourceTemplates, "resource template", templateNames, add)
	st.Prompts = withPrintableNames(st.Prompts, "prompt", promptNames, add)
	checked := st
	checked.Resources = vetItems(cache, old, st.Resources, "resource", cfg.Name, func(r *mcp.Resource) (*mcp.Resource, []finding) { return checkResource(r, cache.mode) }, func(r *mcp.Resource) string { return r.Name }, add)
	checked.ResourceTemplates = vetItems(cache, old, st.ResourceTemplates, "resource template", cfg.Name, func(t *mcp.ResourceTemplate) (*mcp.ResourceTemplate, []finding) {
		return checkResourceTemplate(t, cache.mode)
	}, func(t *mcp.ResourceTemplate) string { return t.Name }, add)
	checked.Prompts = vetItems(cache, old, st.Prompts, "prompt", cfg.Name, func(p *mcp.Prompt) (*mcp.Prompt, []finding) { return checkPrompt(p, cache.mode) }, func(p *mcp.Prompt) string { return p.Name }, add)
	if text, bad := checkText(st.Instructions, cache.mode); bad {
		checked.Instructions = text
		add(true, "the upstream's instructions read like instructions to the model (tool poisoning?); description_check "+cache.mode+" applies")
	}
	if st.Server != nil {
		if text, bad := checkText(st.Server.Title, cache.mode); bad {
			server := *st.Server
			server.Title = text
			checked.Server = &server
			add(true, "the upstream's title reads like instructions to the model (tool poisoning?); description_check "+cache.mode+" applies")
		}
	}
	return tools, checked, notices
}

// vetItems applies the description check to a list of prompts,
// resources or resource templates, through the cache.
func vetItems[T any](cache, old *vetCache, items []*T, kind, upstream string, check func(*T) (*T, []finding), name func(*T) string, add func(bool, string)) []*T {
	if cache.mode == DescriptionCheckOff {
		return items
	}
	out := make([]*T, 0, len(items))
	for _, it := range items {
		f := cache.item(old, it, func() (any, []finding) {
			c, findings := check(it)
			if c == nil {
				return nil, findings
			}
			return c, findings
		})
		if len(f.findings) > 0 {
			outcome := "description_check " + cache.mode + " applies"
			if f.item == nil {
				outcome = "it is left out (description_check strip; a name cannot be stripped)"
			}
			add(true, fmt.Sprintf("%s %s: upstream text reads like instructions to the model (tool poisoning?) in %s; %s",
				kind, quotedName(name(it)), listFindings(f.findings), outcome))
		}
		if f.item != nil {
			out = append(out, f.item.(*T))
		}
	}
	return out
}
