package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-mcp/mcp-gateway/search"
)

// Config is everything the gateway needs to know, independent of Caddy. The
// Caddy module embeds it, so these JSON names are the module's JSON config.
type Config struct {
	// Upstreams are the MCP servers behind the gateway, one domain each, in
	// the order they are listed to clients.
	Upstreams []*UpstreamConfig `json:"upstreams,omitempty"`

	// Instructions replaces the built-in instructions sent to clients on
	// initialize. Empty means the built-in text, which lists the domains.
	Instructions string `json:"instructions,omitempty"`

	// Mode is what clients see: "meta" (the default: the three
	// meta-tools), "passthrough" (the upstreams' tools, resources,
	// resource templates and prompts, namespaced by each upstream's
	// prefix) or "hybrid" (the meta-tools plus the Pin tools).
	Mode string `json:"mode,omitempty"`

	// Pin names the tools hybrid mode exposes directly, in any form
	// discover_tools accepts ("crm.people_search").
	Pin []string `json:"pin,omitempty"`

	// DescriptionCheck is what to do with upstream tool descriptions and
	// instructions that read like instructions to the model (tool
	// poisoning): "flag" (the default: prefix a warning), "strip" (remove
	// those sentences) or "off". Operator overrides are never checked.
	DescriptionCheck string `json:"description_check,omitempty"`

	// MaxResultSize bounds, in bytes of JSON, a tool result passed on to a
	// client; a larger one is cut down to fit and says so (see
	// truncateResult). Zero means DefaultMaxResultSize; negative, no limit.
	MaxResultSize int64 `json:"max_result_size,omitempty"`

	// Search configures the search index of discover_tools.
	Search *SearchConfig `json:"search,omitempty"`

	// MaxToolsPerUpstream bounds the tools the catalog takes from one
	// upstream: the first ones it lists; the rest are left out (and not
	// even kept in memory), and the operator told (log, admin API). Zero
	// means DefaultMaxToolsPerUpstream (5,000); negative, no limit.
	MaxToolsPerUpstream int `json:"max_tools_per_upstream,omitempty"`

	// MaxToolSize bounds, in bytes of JSON, one tool's definition as its
	// upstream lists it (name, title, description, schemas, annotations,
	// _meta); a larger tool is left out, and the operator told, and so is
	// a larger resource, resource template or prompt; none is kept in
	// memory past its name. Zero means DefaultMaxToolSize (64 KiB);
	// negative, no limit. Tool names
	// outside SEP-986 are always renamed (see SafeToolName).
	MaxToolSize int64 `json:"max_tool_size,omitempty"`

	// OnToolChange is what the gateway does when an upstream changes a
	// tool's definition after it was first seen (or last accepted; see
	// pinning.go): "flag" (the default: log it, count it, list it for the
	// operator) or "hold" (also keep the tool out of the catalog until an
	// operator accepts the new definition).
	OnToolChange string `json:"on_tool_change,omitempty"`
}

// DefaultMaxResultSize is the default MaxResultSize: more than a model's
// context takes in one go, enough for a few images.
const DefaultMaxResultSize = 1 << 20

// ResultLimit is MaxResultSize with its default applied; 0 means none.
func (c *Config) ResultLimit() int64 {
	switch {
	case c.MaxResultSize == 0:
		return DefaultMaxResultSize
	case c.MaxResultSize < 0:
		return 0
	}
	return c.MaxResultSize
}

// Modes.
const (
	ModeMeta        = "meta"
	ModePassthrough = "passthrough"
	ModeHybrid      = "hybrid"
)

// EffectiveMode is Mode, or ModeMeta when unset.
func (c *Config) EffectiveMode() string {
	if c.Mode == "" {
		return ModeMeta
	}
	return c.Mode
}

// UpstreamConfig describes one upstream MCP server: how to reach it (the
// embedded Connection) and how its tools appear in the catalog.
type UpstreamConfig struct {
	// Name is the domain name clients see; it is also the prefix of the
	// qualified tool names ("name.tool"). Letters, digits, '_' and '-'.
	Name string `json:"name"`

	// Description is the one-line domain description clients see.
	Description string `json:"description,omitempty"`

	Connection

	// Groups assign tools to groups by name glob; the first matching rule
	// wins. They take precedence over groups the upstream declares.
	Groups []GroupRule `json:"groups,omitempty"`

	// Allow, if set, keeps only tools whose upstream name matches one of
	// these globs. Deny then drops tools matching any of its globs.
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`

	// Tools holds operator overrides, keyed by the upstream tool name.
	Tools map[string]ToolOverride `json:"tools,omitempty"`

	// Prefix namespaces the upstream's tools and prompts (and names its
	// resources) when they are exposed directly, in passthrough and
	// hybrid mode. Unset means the upstream's name and "_"; "" exposes
	// them unchanged, which is allowed when no other upstream has the
	// same names.
	Prefix *string `json:"prefix,omitempty"`

	// Session is "shared" (the default: one upstream session for every
	// client) or "per_client" (each client session gets its own, which
	// stateful upstreams and server-to-client requests need).
	Session string `json:"session,omitempty"`

	// MaxClientSessions bounds, with Session per_client, the upstream
	// sessions clients have of their own at once (each is a process, for
	// a stdio upstream); a client that would need one more gets a busy
	// error. Zero means DefaultMaxClientSessions for a stdio upstream and
	// no bound for an HTTP one; negative, no bound.
	MaxClientSessions int `json:"max_client_sessions,omitempty"`

	// RelayRoots lets the upstream learn the calling client's roots: the
	// gateway declares the client's roots capability to it and relays its
	// roots/list requests to the client. Off, the upstream is told of no
	// roots and its roots/list requests are refused. Roots name folders
	// an upstream may work in, as paths on its own host (the filesystem
	// server replaces the folders it was started with by them), so only
	// an upstream that runs where its clients' files are should get them.
	RelayRoots bool `json:"relay_roots,omitempty"`
}

// DefaultMaxClientSessions bounds the processes a per_client stdio
// upstream starts for clients' own sessions when the config does not say.
const DefaultMaxClientSessions = 32

// ClientSessionLimit is MaxClientSessions with its default; 0 is none.
func (u *UpstreamConfig) ClientSessionLimit() int {
	switch {
	case u.MaxClientSessions < 0:
		return 0
	case u.MaxClientSessions > 0:
		return u.MaxClientSessions
	case u.TransportName() == TransportStdio:
		return DefaultMaxClientSessions
	}
	return 0
}

// SessionKey identifies the upstream sessions this config may share with
// another: its connection, and whether the sessions declare the client's
// roots (RelayRoots). A reload that changes it gets new sessions.
func (u *UpstreamConfig) SessionKey() string {
	if u.RelayRoots {
		return u.Connection.Key() + "+relay_roots"
	}
	return u.Connection.Key()
}

// EffectivePrefix is the prefix of the upstream's directly exposed names.
func (u *UpstreamConfig) EffectivePrefix() string {
	if u.Prefix == nil {
		return u.Name + "_"
	}
	return *u.Prefix
}

// Connection says how to reach an upstream. It is the part of an upstream's
// config that identifies a live connection: two configs with equal
// connections can share one (see Connection.Key).
type Connection struct {
	// URL of a streamable HTTP (or, with Transport "sse", legacy SSE) endpoint.
	URL string `json:"url,omitempty"`

	// Transport is "streamable_http" (the default with a URL), "sse" (legacy
	// HTTP+SSE), or "stdio" (the default with a Command).
	Transport string `json:"transport,omitempty"`

	// Headers are sent with every HTTP request to the upstream.
	Headers http.Header `json:"headers,omitempty"`

	// ForwardHeaders names the client request headers passed on to the
	// upstream with each call; no other client header ever is.
	ForwardHeaders []string `json:"forward_headers,omitempty"`

	// Command, Args, Env and Dir start a stdio upstream. The process gets
	// only a minimal environment (PATH, HOME, ...) plus Env.
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Dir     string            `json:"dir,omitempty"`

	// Timeout bounds connecting and each call to the upstream.
	// Zero means DefaultTimeout.
	Timeout Duration `json:"timeout,omitempty"`

	// MaxConcurrentCalls bounds the calls in flight on the connection;
	// more wait for a slot, within their timeout. Zero means no limit.
	MaxConcurrentCalls int `json:"max_concurrent_calls,omitempty"`

	// MaxConcurrentCallsPerIdentity bounds, of those, the calls of one
	// caller identity (a caller with a user; see Caller), so that one
	// caller cannot hold every slot. Zero means half of
	// MaxConcurrentCalls, rounded up.
	MaxConcurrentCallsPerIdentity int `json:"max_concurrent_calls_per_identity,omitempty"`

	// Secrets are values the fields above hold that are secrets wherever
	// they stand (the value of an {env.*} placeholder in the URL's path,
	// say): scrubbed from errors and logs as header values are. Whoever
	// resolves the config's placeholders sets them; a config cannot.
	Secrets []string `json:"-"`
}

// GroupRule puts the tools whose upstream names match any of Tools (globs)
// in group Name.
type GroupRule struct {
	Name  string   `json:"name"`
	Tools []string `json:"tools"`
}

// ToolOverride is the operator's word on one upstream tool.
type ToolOverride struct {
	// Description replaces the upstream's description of the tool.
	Description string `json:"description,omitempty"`
	// Timeout bounds each call to the tool instead of the upstream's
	// timeout: longer for a slow tool, shorter for one that must be quick.
	Timeout Duration `json:"timeout,omitempty"`
}

// Transport names.
const (
	TransportStreamableHTTP = "streamable_http"
	TransportSSE            = "sse"
	TransportStdio          = "stdio"
)

// DefaultTimeout bounds connecting to an upstream and each call to it when
// the config names no timeout.
const DefaultTimeout = 60 * time.Second

// Duration is a time.Duration that reads from JSON as a Go duration string
// ("30s") or an integer of nanoseconds, and writes as nanoseconds, the way
// Caddy's own durations do.
type Duration time.Duration

// UnmarshalJSON accepts "1m30s" or 90000000000.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("duration %q: want a number with a unit, like \"30s\" or \"1m30s\"", s)
		}
		*d = Duration(v)
		return nil
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("duration must be a string like \"30s\" or an integer of nanoseconds: %s", b)
	}
	*d = Duration(v)
	return nil
}

var (
	placeholder       = regexp.MustCompile(`\{[^{}]*\}`)
	domainNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$`)
	prefixPattern     = regexp.MustCompile(`^[A-Za-z0-9_.-]{0,32}$`)
)

// Validate reports the first problem with the config, naming the upstream.
func (c *Config) Validate() error {
	switch c.Mode {
	case "", ModeMeta, ModePassthrough, ModeHybrid:
	default:
		return fmt.Errorf("unknown mode %q; use %s, %s or %s", c.Mode, ModeMeta, ModePassthrough, ModeHybrid)
	}
	switch c.DescriptionCheck {
	case "", DescriptionCheckFlag, DescriptionCheckStrip, DescriptionCheckOff:
	default:
		return fmt.Errorf("unknown description_check %q; use %s, %s or %s", c.DescriptionCheck, DescriptionCheckFlag, DescriptionCheckStrip, DescriptionCheckOff)
	}
	switch c.OnToolChange {
	case "", OnToolChangeFlag, OnToolChangeHold:
	default:
		return fmt.Errorf("unknown on_tool_change %q; use %s or %s", c.OnToolChange, OnToolChangeFlag, OnToolChangeHold)
	}
	if err := c.validateSizeBounds(); err != nil {
		return err
	}
	if len(c.Pin) > 0 && c.EffectiveMode() != ModeHybrid {
		return fmt.Errorf("pin exposes tools directly in hybrid mode only; add `mode hybrid` or remove pin")
	}
	if c.Search != nil {
		if err := c.Search.load(); err != nil {
			return fmt.Errorf("search: %w", err)
		}
	}
	return c.ValidateUpstreams()
}

// SearchConfig is the operator's part of the search: words of their own
// catalog that its tools and their users say differently ("invoice" and
// "bill", "k8s" and "kubernetes"), which the built-in lexicon, general
// English only, does not know.
type SearchConfig struct {
	// Synonyms are groups of words that mean the same, each a string of
	// two words or more separated by spaces ("invoice bill receipt"). A
	// request's word matches the other words of its groups, at half
	// weight.
	Synonyms []string `json:"synonyms,omitempty"`
	// SynonymFiles are files of such groups, one a line, in the format of
	// the search lexicon's thesaurus (# starts a comment). They are read
	// when the config is loaded.
	SynonymFiles []string `json:"synonym_files,omitempty"`

	// groups are Synonyms and the files' groups, checked, once load has
	// read them.
	groups []string
	loaded bool
}

// load reads the synonym files and checks every group, once: Validate
// calls it, so a config loads with its files or not at all, and the
// catalog reads what was loaded, never the files again.
func (s *SearchConfig) load() error {
	if s.loaded {
		return nil
	}
	var groups []string
	for _, g := range s.Synonyms {
		if strings.ContainsAny(g, "#\n") {
			return fmt.Errorf("synonyms %q: a group is one line of words of letters and digits", g)
		}
		parsed, err := search.ParseSynonyms(g)
		if err != nil {
			return fmt.Errorf("synonyms %q: %v", g, strings.TrimPrefix(err.Error(), "line 1: "))
		}
		groups = append(groups, parsed...)
	}
	for _, file := range s.SynonymFiles {
		data, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("synonyms file: %v", err)
		}
		parsed, err := search.ParseSynonyms(string(data))
		if err != nil {
			return fmt.Errorf("synonyms file %s: %v", file, err)
		}
		groups = append(groups, parsed...)
	}
	s.groups, s.loaded = groups, true
	return nil
}

// searchOptions are the search index's options of the config.
func (c *Config) searchOptions() search.Options {
	if c.Search == nil {
		return search.Options{}
	}
	return search.Options{Synonyms: c.Search.groups}
}

// ValidateUpstreams reports the first problem with the upstreams' configs,
// or two upstreams with one name.
func (c *Config) ValidateUpstreams() error {
	seen := make(map[string]bool)
	for i, u := range c.Upstreams {
		if u == nil {
			return fmt.Errorf("upstream #%d is empty", i+1)
		}
		if err := u.Validate(); err != nil {
			return err
		}
		key := strings.ToLower(u.Name)
		if seen[key] {
			return fmt.Errorf("upstream %q: the name is used twice (names are case-insensitive); give each upstream its own name", u.Name)
		}
		seen[key] = true
	}
	return nil
}

// Validate reports what is wrong with one upstream's config, if anything.
func (u *UpstreamConfig) Validate() error {
	if u.Name == "" {
		return errors.New("upstream needs a name, e.g. `upstream crm { ... }`")
	}
	if !domainNamePattern.MatchString(u.Name) {
		return fmt.Errorf("upstream %q: a name is 1-32 letters, digits, '_' or '-', starting with a letter or digit", u.Name)
	}
	if err := u.Connection.validate(); err != nil {
		return fmt.Errorf("upstream %q: %w", u.Name, err)
	}
	for _, g := range u.Groups {
		if strings.TrimSpace(g.Name) == "" {
			return fmt.Errorf("upstream %q: a group rule needs a name", u.Name)
		}
		if len(g.Tools) == 0 {
			return fmt.Errorf("upstream %q: group %q needs at least one tool name glob", u.Name, g.Name)
		}
		if err := validateGlobs(g.Tools); err != nil {
			return fmt.Errorf("upstream %q: group %q: %w", u.Name, g.Name, err)
		}
	}
	if err := validateGlobs(u.Allow); err != nil {
		return fmt.Errorf("upstream %q: allow: %w", u.Name, err)
	}
	if err := validateGlobs(u.Deny); err != nil {
		return fmt.Errorf("upstream %q: deny: %w", u.Name, err)
	}
	if u.Prefix != nil && !prefixPattern.MatchString(*u.Prefix) {
		return fmt.Errorf("upstream %q: prefix %q may hold only letters, digits, '_', '-' and '.', at most 32", u.Name, *u.Prefix)
	}
	switch u.Session {
	case "", SessionShared, SessionPerClient:
	default:
		return fmt.Errorf("upstream %q: unknown session %q; use %s or %s", u.Name, u.Session, SessionShared, SessionPerClient)
	}
	if u.MaxClientSessions != 0 && u.Session != SessionPerClient {
		return fmt.Errorf("upstream %q: max_client_sessions bounds the sessions of `session %s`, which this upstream does not have; add `session %s` or remove max_client_sessions", u.Name, SessionPerClient, SessionPerClient)
	}
	for name, o := range u.Tools {
		if name == "" {
			return fmt.Errorf("upstream %q: a tool override needs the tool's name", u.Name)
		}
		if strings.TrimSpace(o.Description) == "" && o.Timeout == 0 {
			return fmt.Errorf("upstream %q: tool %q: the override sets nothing; give it a description or a timeout", u.Name, name)
		}
		if o.Timeout < 0 {
			return fmt.Errorf("upstream %q: tool %q: timeout must be positive", u.Name, name)
		}
	}
	return nil
}

func (c *Connection) validate() error {
	switch {
	case c.URL == "" && c.Command == "":
		return errors.New("needs either a `url` (HTTP upstream) or a `command` (stdio upstream)")
	case c.URL != "" && c.Command != "":
		return errors.New("has both a `url` and a `command`; an upstream is either HTTP or stdio")
	}
	switch c.Transport {
	case "", TransportStreamableHTTP, TransportSSE, TransportStdio:
	default:
		return fmt.Errorf("unknown transport %q; use %s, %s or %s", c.Transport, TransportStreamableHTTP, TransportSSE, TransportStdio)
	}
	if c.URL != "" {
		if c.Transport == TransportStdio {
			return errors.New("transport stdio needs a `command`, not a `url`")
		}
		// Placeholders resolved per request are not supported in URLs;
		// global ones ({env.KEY}) may stand anywhere, user info included,
		// so the URL's shape is checked with each replaced by a word. The
		// URL is quoted redacted: it may hold credentials.
		u, err := url.Parse(placeholder.ReplaceAllString(c.URL, "placeholder"))
		if err != nil {
			return fmt.Errorf("url %q does not parse as a URL", RedactURL(c.URL))
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("url %q must be an absolute http:// or https:// URL", RedactURL(c.URL))
		}
		if len(c.Args) > 0 || len(c.Env) > 0 || c.Dir != "" {
			return errors.New("args, env and dir apply to stdio upstreams (`command`), not to a `url`")
		}
	} else {
		if c.Transport != "" && c.Transport != TransportStdio {
			return fmt.Errorf("transport %s needs a `url`, not a `command`", c.Transport)
		}
		if len(c.Headers) > 0 || len(c.ForwardHeaders) > 0 {
			return errors.New("header and forward_header apply to HTTP upstreams (`url`), not to a `command`")
		}
	}
	if c.MaxConcurrentCalls < 0 {
		return errors.New("max_concurrent_calls must be positive")
	}
	if c.MaxConcurrentCallsPerIdentity < 0 {
		return errors.New("max_concurrent_calls_per_identity must be positive")
	}
	if c.MaxConcurrentCallsPerIdentity > 0 && c.MaxConcurrentCalls == 0 {
		return errors.New("max_concurrent_calls_per_identity is a share of max_concurrent_calls; set that too")
	}
	if c.MaxConcurrentCallsPerIdentity > c.MaxConcurrentCalls {
		return fmt.Errorf("max_concurrent_calls_per_identity %d is more than max_concurrent_calls %d, so it would bound nothing; make it at most %d", c.MaxConcurrentCallsPerIdentity, c.MaxConcurrentCalls, c.MaxConcurrentCalls)
	}
	if c.Timeout < 0 {
		return errors.New("timeout must be positive")
	}
	return nil
}

// TransportName is the effective transport: Transport, or its default.
func (c *Connection) TransportName() string {
	switch {
	case c.Transport != "":
		return c.Transport
	case c.Command != "":
		return TransportStdio
	default:
		return TransportStreamableHTTP
	}
}

// ToolTimeout is how long a call to the upstream tool named name may take:
// its override's timeout, or the upstream's.
// A nil config (an upstream a reload removed) has DefaultTimeout.
func (u *UpstreamConfig) ToolTimeout(name string) time.Duration {
	if u == nil {
		return DefaultTimeout
	}
	if o, ok := u.Tools[name]; ok && o.Timeout > 0 {
		return time.Duration(o.Timeout)
	}
	return u.CallTimeout()
}

// CallTimeout is Timeout, or DefaultTimeout when unset.
func (c *Connection) CallTimeout() time.Duration {
	if c.Timeout > 0 {
		return time.Duration(c.Timeout)
	}
	return DefaultTimeout
}

// Key identifies the live connection this config describes: equal keys may
// share one connection (across config reloads, for instance). It is a hash,
// so secrets in headers or env do not end up in the key itself. Secrets
// count too: a connection scrubs the Secrets it was made with, so other
// Secrets need another connection.
func (c *Connection) Key() string {
	b, _ := json.Marshal([]any{c, c.Secrets}) // plain structs of strings, maps and slices: cannot fail
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func validateGlobs(globs []string) error {
	for _, g := range globs {
		if g == "" {
			return errors.New("empty tool name glob")
		}
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("bad glob %q: %v", g, err)
		}
	}
	return nil
}

// matchAny reports whether name matches any of the (validated) globs (see
// matchGlob).
func matchAny(globs []string, name string) bool {
	for _, g := range globs {
		if matchGlob(g, name) {
			return true
		}
	}
	return false
}
