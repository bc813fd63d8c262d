package mcpgateway

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/caddy-mcp/mcp-gateway/search"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/dustin/go-humanize"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("mcp_gateway", parseCaddyfile)
	// A terminal handler, like reverse_proxy: users need no `order` line.
	httpcaddyfile.RegisterDirectiveOrder("mcp_gateway", httpcaddyfile.Before, "reverse_proxy")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	var m Handler
	err := m.unmarshal(h.Dispenser, &h)
	return &m, err
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens:
//
//	mcp_gateway {
//		name <name>
//		mode meta|passthrough|hybrid
//		pin <tool...>
//		instructions <text>
//		session_timeout <duration>
//		stateless
//		max_request_body <size>
//		max_result_size <size>|off
//		max_sessions <n>|off
//		max_sessions_per_identity <n>
//		identity <placeholder>
//		state_secret <secret>
//		log_values
//		session_id_prefix <text>
//		allowed_hosts <host...>
//		allowed_origins <origin...>
//		description_check flag|strip|off
//		on_tool_change flag|hold
//		max_tools_per_upstream <n>|off
//		max_tool_size <size>|off
//
//		search {
//			synonyms <file>
//			synonyms <word> <word...>
//		}
//
//		access [<matcher>] {
//			allow <glob...>
//			deny <glob...>
//		}
//
//		upstream <name> [<url>] {
//			url <url>
//			transport streamable_http|sse|stdio
//			header <name> <value>
//			command <program> [<args...>]
//			args <args...>
//			env <name> <value>
//			dir <path>
//			description <text>
//			timeout <duration>
//			max_concurrent_calls <n>
//			max_concurrent_calls_per_identity <n>
//			max_client_sessions <n>|off
//			group <name> <glob...>
//			allow <glob...>
//			deny <glob...>
//			tool <name> {
//				description <text>
//				timeout <duration>
//			}
//			prefix <text>
//			session shared|per_client
//			forward_header <name...>
//			relay_roots
//		}
//	}
//
// In the search block, synonyms with one argument holding no space names a
// file of synonym groups, one a line (# starts a comment); with more
// words, or one quoted argument of several ("invoice bill receipt"), it
// is a group itself. Words of a group are searched for each other.
//
// Values may hold Caddy placeholders such as {env.TOKEN} or {file.path};
// a header value may also hold per-request ones ({http.auth.user.id}).
// An access block's matcher is a named matcher (@name) or a path; it needs
// the site's named matchers, so it works only within a Caddyfile site.
// Every problem is reported with the file and line it is on.
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	return h.unmarshal(d, nil)
}

func (h *Handler) unmarshal(d *caddyfile.Dispenser, helper *httpcaddyfile.Helper) error {
	d.Next() // the directive name
	if d.NextArg() {
		return d.ArgErr()
	}
	var accessAt []string // where each access block is, for checks that need the upstreams
	var pinAt string      // where the first pin line is, for the check that needs the mode
	for d.NextBlock(0) {
		switch d.Val() {
		case "instructions":
			if err := singleArg(d, &h.Instructions); err != nil {
				return err
			}
		case "mode":
			if err := singleArg(d, &h.Mode); err != nil {
				return err
			}
			switch h.Mode {
			case gateway.ModeMeta, gateway.ModePassthrough, gateway.ModeHybrid:
			default:
				return d.Errf("unknown mode %q; use %s, %s or %s", h.Mode, gateway.ModeMeta, gateway.ModePassthrough, gateway.ModeHybrid)
			}
		case "name":
			if err := singleArg(d, &h.Name); err != nil {
				return err
			}
			if err := checkName(h.Name); err != nil {
				return d.Err(err.Error())
			}
		case "max_request_body":
			var size string
			if err := singleArg(d, &size); err != nil {
				return err
			}
			n, err := humanize.ParseBytes(size)
			if err != nil || n == 0 || n > 1<<40 {
				return d.Errf("max_request_body must be a size like 4MB, got %q", size)
			}
			h.MaxRequestBody = int64(n)
		case "max_result_size":
			var size string
			if err := singleArg(d, &size); err != nil {
				return err
			}
			if size == "off" {
				h.MaxResultSize = -1
				break
			}
			n, err := humanize.ParseBytes(size)
			if err != nil || n < gateway.MinSizeBound || n > 1<<40 {
				return d.Errf("max_result_size must be a size of at least 1KB like 1MB, or off; got %q", size)
			}
			h.MaxResultSize = int64(n)
		case "session_id_prefix":
			if err := singleArg(d, &h.SessionIDPrefix); err != nil {
				return err
			}
			if !strings.Contains(h.SessionIDPrefix, "{") {
				if err := gateway.ValidSessionIDPrefix(h.SessionIDPrefix); err != nil {
					return d.Err(err.Error())
				}
			}
		case "log_values":
			if d.NextArg() {
				return d.ArgErr()
			}
			h.LogValues = true
		case "max_sessions":
			var v string
			if err := singleArg(d, &v); err != nil {
				return err
			}
			if v == "off" {
				h.MaxSessions = -1
				break
			}
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return d.Errf("max_sessions must be a positive number, or off; got %q", v)
			}
			h.MaxSessions = n
		case "max_sessions_per_identity":
			var v string
			if err := singleArg(d, &v); err != nil {
				return err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return d.Errf("max_sessions_per_identity must be a positive number; got %q", v)
			}
			h.MaxSessionsPerIdentity = n
		case "identity":
			if err := singleArg(d, &h.Identity); err != nil {
				return err
			}
			if err := checkIdentity(h.Identity); err != nil {
				return d.Err(err.Error())
			}
		case "state_secret":
			if err := singleArg(d, &h.StateSecret); err != nil {
				return err
			}
		case "description_check":
			if err := singleArg(d, &h.DescriptionCheck); err != nil {
				return err
			}
			switch h.DescriptionCheck {
			case gateway.DescriptionCheckFlag, gateway.DescriptionCheckStrip, gateway.DescriptionCheckOff:
			default:
				return d.Errf("unknown description_check %q; use %s, %s or %s", h.DescriptionCheck, gateway.DescriptionCheckFlag, gateway.DescriptionCheckStrip, gateway.DescriptionCheckOff)
			}
		case "search":
			if err := h.parseSearch(d); err != nil {
				return err
			}
		case "on_tool_change":
			if err := singleArg(d, &h.OnToolChange); err != nil {
				return err
			}
			if h.OnToolChange != gateway.OnToolChangeFlag && h.OnToolChange != gateway.OnToolChangeHold {
				return d.Errf("unknown on_tool_change %q; use %s or %s", h.OnToolChange, gateway.OnToolChangeFlag, gateway.OnToolChangeHold)
			}
		case "max_tools_per_upstream":
			var v string
			if err := singleArg(d, &v); err != nil {
				return err
			}
			if v == "off" {
				h.MaxToolsPerUpstream = -1
				break
			}
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return d.Errf("max_tools_per_upstream must be a positive number, or off; got %q", v)
			}
			h.MaxToolsPerUpstream = n
		case "max_tool_size":
			var size string
			if err := singleArg(d, &size); err != nil {
				return err
			}
			if size == "off" {
				h.MaxToolSize = -1
				break
			}
			n, err := humanize.ParseBytes(size)
			if err != nil || n < gateway.MinSizeBound || n > 1<<30 {
				return d.Errf("max_tool_size must be a size of at least 1KB like 64KiB, or off; got %q", size)
			}
			h.MaxToolSize = int64(n)
		case "access":
			accessAt = append(accessAt, fmt.Sprintf("%s:%d", d.File(), d.Line()))
			p, err := parseAccess(d, helper)
			if err != nil {
				return err
			}
			h.Access = append(h.Access, p)
		case "allowed_hosts", "allowed_origins":
			option := d.Val()
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.Errf("%s takes one or more values", option)
			}
			if option == "allowed_hosts" {
				for _, host := range args {
					if err := gateway.ValidateAllowedHost(host); err != nil {
						return d.Err(err.Error())
					}
				}
				h.AllowedHosts = append(h.AllowedHosts, args...)
			} else {
				for _, o := range args {
					if err := http.NewCrossOriginProtection().AddTrustedOrigin(o); err != nil {
						return d.Errf("allowed_origins: %v", err)
					}
				}
				h.AllowedOrigins = append(h.AllowedOrigins, args...)
			}
		case "pin":
			if pinAt == "" {
				pinAt = fmt.Sprintf("%s:%d", d.File(), d.Line())
			}
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.Err("pin takes the names of the tools hybrid mode exposes directly, e.g. pin crm.people_search")
			}
			h.Pin = append(h.Pin, args...)
		case "session_timeout":
			var s string
			if err := singleArg(d, &s); err != nil {
				return err
			}
			dur, err := caddy.ParseDuration(s)
			if err != nil || dur <= 0 {
				return d.Errf("session_timeout must be a positive duration like 30m, got %q", s)
			}
			h.SessionTimeout = caddy.Duration(dur)
		case "stateless":
			if d.NextArg() {
				return d.ArgErr()
			}
			h.Stateless = true
		case "upstream":
			file, line := d.File(), d.Line()
			u, err := parseUpstream(d)
			if err != nil {
				return err
			}
			h.Upstreams = append(h.Upstreams, u)
			// Checks that need the whole block (and the other upstreams)
			// are reported at the upstream's line.
			if err := u.Validate(); err != nil {
				return fmt.Errorf("%v, at %s:%d", err, file, line)
			}
			if err := h.Config.ValidateUpstreams(); err != nil {
				return fmt.Errorf("%v, at %s:%d", err, file, line)
			}
		default:
			return d.Errf("unknown mcp_gateway option %q; options are name, mode, pin, instructions, session_timeout, stateless, max_request_body, max_result_size, max_sessions, max_sessions_per_identity, identity, state_secret, log_values, session_id_prefix, allowed_hosts, allowed_origins, search, access, description_check, on_tool_change, max_tools_per_upstream, max_tool_size and upstream", d.Val())
		}
	}
	if len(h.Pin) > 0 && h.EffectiveMode() != gateway.ModeHybrid {
		return fmt.Errorf("pin exposes tools directly in hybrid mode only; add `mode hybrid` or remove pin, at %s", pinAt)
	}
	if i, err := h.checkAccess(); err != nil {
		return fmt.Errorf("%v, at %s", err, accessAt[i])
	}
	return nil
}

func parseUpstream(d *caddyfile.Dispenser) (*gateway.UpstreamConfig, error) {
	u := &gateway.UpstreamConfig{}
	if !d.NextArg() {
		return nil, d.Err("upstream needs a name: upstream <name> [<url>] { ... }")
	}
	u.Name = d.Val()
	if d.NextArg() {
		u.URL = d.Val()
	}
	if d.NextArg() {
		return nil, d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		option := d.Val()
		switch option {
		case "url":
			if u.URL != "" {
				return nil, d.Errf("upstream %q: url is set twice", u.Name)
			}
			if err := singleArg(d, &u.URL); err != nil {
				return nil, err
			}
		case "transport":
			if err := singleArg(d, &u.Transport); err != nil {
				return nil, err
			}
			switch u.Transport {
			case gateway.TransportStreamableHTTP, gateway.TransportSSE, gateway.TransportStdio:
			default:
				return nil, d.Errf("upstream %q: unknown transport %q; use %s, %s or %s", u.Name, u.Transport,
					gateway.TransportStreamableHTTP, gateway.TransportSSE, gateway.TransportStdio)
			}
		case "header":
			var name, value string
			if !d.Args(&name, &value) || d.NextArg() {
				return nil, d.Errf("upstream %q: header takes a name and a value: header Authorization \"Bearer {env.TOKEN}\"", u.Name)
			}
			if u.Headers == nil {
				u.Headers = http.Header{}
			}
			u.Headers.Add(name, value)
		case "command":
			if u.Command != "" {
				return nil, d.Errf("upstream %q: command is set twice", u.Name)
			}
			args := d.RemainingArgs()
			if len(args) == 0 {
				return nil, d.Errf("upstream %q: command needs a program: command npx -y @modelcontextprotocol/server-memory", u.Name)
			}
			u.Command, u.Args = args[0], append(u.Args, args[1:]...)
		case "args":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return nil, d.ArgErr()
			}
			u.Args = append(u.Args, args...)
		case "env":
			var name, value string
			if !d.Args(&name, &value) || d.NextArg() {
				return nil, d.Errf("upstream %q: env takes a name and a value: env NODE_ENV production", u.Name)
			}
			if u.Env == nil {
				u.Env = map[string]string{}
			}
			u.Env[name] = value
		case "dir":
			if err := singleArg(d, &u.Dir); err != nil {
				return nil, err
			}
		case "description":
			if err := singleArg(d, &u.Description); err != nil {
				return nil, err
			}
		case "timeout":
			var s string
			if err := singleArg(d, &s); err != nil {
				return nil, err
			}
			dur, err := caddy.ParseDuration(s)
			if err != nil || dur <= 0 {
				return nil, d.Errf("upstream %q: timeout must be a positive duration like 30s, got %q", u.Name, s)
			}
			u.Timeout = gateway.Duration(dur)
		case "max_concurrent_calls":
			var v string
			if err := singleArg(d, &v); err != nil {
				return nil, err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return nil, d.Errf("upstream %q: max_concurrent_calls must be a positive number, got %q", u.Name, v)
			}
			u.MaxConcurrentCalls = n
		case "max_concurrent_calls_per_identity":
			var v string
			if err := singleArg(d, &v); err != nil {
				return nil, err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return nil, d.Errf("upstream %q: max_concurrent_calls_per_identity must be a positive number, got %q", u.Name, v)
			}
			u.MaxConcurrentCallsPerIdentity = n
		case "max_client_sessions":
			var v string
			if err := singleArg(d, &v); err != nil {
				return nil, err
			}
			if v == "off" {
				u.MaxClientSessions = -1
				break
			}
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return nil, d.Errf("upstream %q: max_client_sessions must be a positive number, or off; got %q", u.Name, v)
			}
			u.MaxClientSessions = n
		case "group":
			args := d.RemainingArgs()
			if len(args) < 2 {
				return nil, d.Errf("upstream %q: group takes a name and tool name globs: group people crm_people_*", u.Name)
			}
			u.Groups = append(u.Groups, gateway.GroupRule{Name: args[0], Tools: args[1:]})
		case "allow", "deny":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return nil, d.Errf("upstream %q: %s takes one or more tool name globs", u.Name, option)
			}
			if option == "allow" {
				u.Allow = append(u.Allow, args...)
			} else {
				u.Deny = append(u.Deny, args...)
			}
		case "tool":
			name, override, err := parseToolOverride(d, u.Name)
			if err != nil {
				return nil, err
			}
			if u.Tools == nil {
				u.Tools = map[string]gateway.ToolOverride{}
			}
			if _, dup := u.Tools[name]; dup {
				return nil, d.Errf("upstream %q: tool %q is overridden twice", u.Name, name)
			}
			u.Tools[name] = override
		case "prefix":
			var p string
			if !d.NextArg() {
				return nil, d.Errf("upstream %q: prefix needs a value; use prefix \"\" for none", u.Name)
			}
			p = d.Val()
			if d.NextArg() {
				return nil, d.ArgErr()
			}
			u.Prefix = &p
		case "forward_header":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return nil, d.Errf("upstream %q: forward_header takes the names of client headers to pass on", u.Name)
			}
			u.ForwardHeaders = append(u.ForwardHeaders, args...)
		case "session":
			if err := singleArg(d, &u.Session); err != nil {
				return nil, err
			}
			if u.Session != gateway.SessionShared && u.Session != gateway.SessionPerClient {
				return nil, d.Errf("upstream %q: unknown session %q; use %s or %s", u.Name, u.Session, gateway.SessionShared, gateway.SessionPerClient)
			}
		case "relay_roots":
			if d.NextArg() {
				return nil, d.Errf("upstream %q: relay_roots takes no value", u.Name)
			}
			u.RelayRoots = true
		default:
			return nil, d.Errf("upstream %q: unknown option %q; options are url, transport, header, forward_header, command, args, env, dir, description, timeout, max_concurrent_calls, max_concurrent_calls_per_identity, max_client_sessions, group, allow, deny, tool, prefix, session and relay_roots", u.Name, option)
		}
	}
	return u, nil
}

func parseToolOverride(d *caddyfile.Dispenser, upstream string) (string, gateway.ToolOverride, error) {
	var o gateway.ToolOverride
	if !d.NextArg() {
		return "", o, d.Errf("upstream %q: tool needs the upstream tool's name: tool <name> { description <text> }", upstream)
	}
	name := d.Val()
	if d.NextArg() {
		return "", o, d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch d.Val() {
		case "description":
			if err := singleArg(d, &o.Description); err != nil {
				return "", o, err
			}
		case "timeout":
			var s string
			if err := singleArg(d, &s); err != nil {
				return "", o, err
			}
			t, err := caddy.ParseDuration(s)
			if err != nil || t <= 0 {
				return "", o, d.Errf("upstream %q: tool %q: timeout must be a positive duration like 5m, got %q", upstream, name, s)
			}
			o.Timeout = gateway.Duration(t)
		default:
			return "", o, d.Errf("upstream %q: tool %q: unknown option %q; options are description and timeout", upstream, name, d.Val())
		}
	}
	if strings.TrimSpace(o.Description) == "" && o.Timeout == 0 {
		return "", o, d.Errf("upstream %q: tool %q: the block sets nothing; give it a description or a timeout", upstream, name)
	}
	return name, o, nil
}

// parseAccess parses `access [<matcher>] { allow <glob...>; deny <glob...> }`.
func parseAccess(d *caddyfile.Dispenser, helper *httpcaddyfile.Helper) (*AccessPolicy, error) {
	p := &AccessPolicy{}
	if d.NextArg() {
		if helper == nil {
			return nil, d.Err("access with a matcher needs the Caddyfile's named matchers; use mcp_gateway inside a site block")
		}
		token := d.Val()
		d.Prev()
		matcherSet, hasMatcher, err := helper.MatcherToken()
		if err != nil {
			return nil, d.Errf("access: %v", err)
		}
		if !hasMatcher {
			return nil, d.Errf("access takes a matcher (@name or a path) or nothing, not %q", d.Val())
		}
		if matcherSet != nil {
			p.MatcherSetsRaw = caddyhttp.RawMatcherSets{matcherSet}
		}
		p.Name = strings.TrimPrefix(token, "@")
		if d.NextArg() {
			return nil, d.ArgErr()
		}
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		option := d.Val()
		args := d.RemainingArgs()
		if len(args) == 0 {
			return nil, d.Errf("access: %s takes one or more globs over qualified tool names, e.g. %s crm.*", option, option)
		}
		switch option {
		case "allow":
			p.Allow = append(p.Allow, args...)
		case "deny":
			p.Deny = append(p.Deny, args...)
		default:
			return nil, d.Errf("access: unknown option %q; options are allow and deny", option)
		}
	}
	if err := gateway.ValidateAccessRules([]gateway.AccessRule{p.AccessRule}); err != nil {
		return nil, d.Errf("access: %v", err)
	}
	return p, nil
}

// singleArg reads exactly one argument into dst.
func singleArg(d *caddyfile.Dispenser, dst *string) error {
	option := d.Val()
	if !d.NextArg() {
		return d.Errf("%s needs a value", option)
	}
	*dst = d.Val()
	if d.NextArg() {
		return d.Errf("%s takes one value; quote it if it has spaces", option)
	}
	return nil
}

// Interface guard.
var _ caddyfile.Unmarshaler = (*Handler)(nil)

// parseSearch parses a search block: `search { synonyms <file> | <words...> }`.
func (h *Handler) parseSearch(d *caddyfile.Dispenser) error {
	if d.NextArg() {
		return d.ArgErr()
	}
	if h.Search == nil {
		h.Search = new(gateway.SearchConfig)
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch d.Val() {
		case "synonyms":
			args := d.RemainingArgs()
			switch {
			case len(args) == 0:
				return d.Err(`synonyms takes a file of synonym groups, or a group's words: synonyms /etc/caddy/synonyms.txt, or synonyms "invoice bill receipt"`)
			case len(args) == 1 && len(strings.Fields(args[0])) == 1:
				h.Search.SynonymFiles = append(h.Search.SynonymFiles, args[0])
			default:
				group := strings.Join(args, " ")
				if _, err := search.ParseSynonyms(group); err != nil || strings.ContainsAny(group, "#\n") {
					if err == nil {
						err = fmt.Errorf("a group is one line of words of letters and digits")
					}
					return d.Errf("synonyms %q: %v", group, strings.TrimPrefix(err.Error(), "line 1: "))
				}
				h.Search.Synonyms = append(h.Search.Synonyms, group)
			}
		default:
			return d.Errf("unknown search option %q; the search block takes synonyms", d.Val())
		}
	}
	return nil
}
