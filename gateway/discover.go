package gateway

import (
	"context"
	"fmt"
	"strings"

	"github.com/caddy-mcp/mcp-gateway/search"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxQueryLen bounds a search query, in bytes.
const maxQueryLen = 1000

var discoverArgs = []argSpec{
	{name: "domain", kind: argString},
	{name: "group", kind: argString},
	{name: "query", kind: argString},
}

// Response shapes of discover_tools. Field names follow the meta-tool API
// contract; empty fields are left out to save tokens.
type (
	domainSummary struct {
		Name        string   `json:"name"`
		Description string   `json:"description,omitempty"`
		ToolCount   int      `json:"tool_count"`
		Groups      []string `json:"groups,omitempty"`
		// Status is set only when the domain cannot be used right now.
		Status string `json:"status,omitempty"`
	}
	domainsResponse struct {
		Domains    []domainSummary `json:"domains"`
		TotalTools int             `json:"total_tools"`
		Note       string          `json:"note,omitempty"`
	}
	toolSummary struct {
		Name        string `json:"name"`
		Domain      string `json:"domain,omitempty"`
		Group       string `json:"group,omitempty"`
		Description string `json:"description"`
		// Score and Explanation are set for an operator's explained
		// search only (see DiscoverExplained), never for a model.
		Score       float64             `json:"score,omitempty"`
		Explanation *search.Explanation `json:"explanation,omitempty"`
	}
	domainResponse struct {
		Domain string        `json:"domain"`
		Group  string        `json:"group,omitempty"`
		Status string        `json:"status,omitempty"`
		Tools  []toolSummary `json:"tools"`
		// Total and Next are set when the listing is paged.
		Total int    `json:"total,omitempty"`
		Next  string `json:"next_query,omitempty"`
		Note  string `json:"note,omitempty"`
	}
	searchResponse struct {
		Query   string        `json:"query"`
		Domain  string        `json:"domain,omitempty"`
		Group   string        `json:"group,omitempty"`
		Results []toolSummary `json:"results"`
		Total   int           `json:"total"`
		// Next is the query for the next page, when there is one.
		Next string `json:"next_query,omitempty"`
		Note string `json:"note,omitempty"`
		// Reading is how the search read the query, for an operator's
		// explained search only (see DiscoverExplained).
		Reading *search.Reading `json:"reading,omitempty"`
		// weak: the best result covers little of the query (see
		// SearchRecord); for search analytics, not for the model.
		weak bool
	}
)

// discoverTools implements discover_tools: the domain table of contents,
// one domain, one group, or a search (ranked words, select:, /regex/),
// optionally scoped and paged; see search.ParseQuery for the syntax.
func (v *view) discoverTools(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	v = v.g.requestView(req, v)
	v.g.AwaitStartup(ctx)
	args, err := decodeArgs(DiscoverToolsName, req.Params.Arguments, discoverArgs)
	if err != nil {
		return errorResult(ErrInvalidArguments, err.Error()), nil
	}
	c := v.Catalog()
	domainName, groupName, queryText := args.str("domain"), args.str("group"), args.str("query")
	if len(queryText) > maxQueryLen {
		return errorResult(ErrInvalidArguments, fmt.Sprintf("query is %d bytes; the limit is %d. Use a few keywords.", len(queryText), maxQueryLen)), nil
	}
	for arg, value := range map[string]string{"domain": domainName, "group": groupName} {
		// No domain or group is named longer than a tool may be; an
		// argument that is goes no further (it would be matched whole
		// against every name for suggestions).
		if len(value) > maxNameLen {
			return errorResult(ErrInvalidArguments, fmt.Sprintf("%s is %d bytes; no %s name is longer than %d. Call discover_tools without arguments for the domains.", arg, len(value), arg, maxNameLen)), nil
		}
	}
	q, err := search.ParseQuery(queryText)
	if err != nil {
		return errorResult(ErrInvalidArguments, "query: "+err.Error()), nil
	}
	if domainName, err = scopeOption("domain", domainName, q.Domain); err != nil {
		return errorResult(ErrInvalidArguments, err.Error()), nil
	}
	if groupName, err = scopeOption("group", groupName, q.Group); err != nil {
		return errorResult(ErrInvalidArguments, err.Error()), nil
	}
	var domain *Domain
	if domainName != "" {
		if domain = c.Domain(domainName); domain == nil {
			return errorResult(ErrUnknownDomain, unknownDomainMessage(c, domainName)), nil
		}
	}
	if groupName != "" {
		if domain == nil {
			return errorResult(ErrInvalidArguments, groupWithoutDomainMessage(c, groupName)), nil
		}
		canonical, ok := domain.HasGroup(groupName)
		if !ok {
			return errorResult(ErrUnknownGroup, unknownGroupMessage(domain, groupName)), nil
		}
		groupName = canonical
	}
	scope := toolScope{domain: domain, group: groupName}
	switch {
	case len(q.Select) > 0:
		return jsonResult(selectTools(c, queryText, q.Select, scope)), nil
	case q.Regex != nil:
		return jsonResult(regexTools(ctx, c, queryText, q, scope)), nil
	case q.Text != "":
		resp := searchTools(c, queryText, q, scope, v.operator && explaining(ctx))
		if !v.operator {
			v.g.observeSearch(req, queryText, resp)
		}
		return jsonResult(resp), nil
	case domain != nil:
		return jsonResult(listDomain(domain, groupName, q)), nil
	default:
		return jsonResult(listDomains(c)), nil
	}
}

// scopeOption merges a scope given as an argument with one written in the
// query (domain:x); they must agree.
func scopeOption(name, arg, inQuery string) (string, error) {
	switch {
	case inQuery == "":
		return arg, nil
	case arg == "" || strings.EqualFold(arg, inQuery):
		return inQuery, nil
	}
	return "", fmt.Errorf("%s is '%s' but the query says %s:%s; give it once", name, arg, name, inQuery)
}

// toolScope is the part of the catalog a query is limited to.
type toolScope struct {
	domain *Domain
	group  string
}

func (s toolScope) contains(t *Tool) bool {
	return (s.domain == nil || t.Domain == s.domain) && (s.group == "" || t.Group == s.group)
}

func (s toolScope) domainName() string {
	if s.domain == nil {
		return ""
	}
	return s.domain.Name
}

// maxListedGroups bounds the groups the table of contents lists for a
// domain: an upstream's tools may each declare a group of their own.
const maxListedGroups = 25

func listDomains(c *Catalog) domainsResponse {
	resp := domainsResponse{Domains: make([]domainSummary, 0, len(c.Domains))}
	var down, cut []string
	for _, d := range c.Domains {
		s := domainSummary{Name: d.Name, Description: d.Summary, ToolCount: len(d.Tools), Groups: d.Groups}
		if len(d.Groups) > maxListedGroups {
			s.Groups = d.Groups[:maxListedGroups]
			cut = append(cut, fmt.Sprintf("'%s' (%d)", d.Name, len(d.Groups)))
		}
		if d.State != StateReady {
			s.Status = d.State.String()
			down = append(down, d.Name)
		}
		resp.Domains = append(resp.Domains, s)
		resp.TotalTools += len(d.Tools)
	}
	var notes []string
	if len(down) > 0 {
		notes = append(notes, fmt.Sprintf("Temporarily unavailable: %s. Tools in other domains work.", strings.Join(down, ", ")))
	}
	if len(cut) > 0 {
		notes = append(notes, fmt.Sprintf("Only the first %d groups of these domains are listed: %s. Call discover_tools with the domain to browse all its tools.", maxListedGroups, strings.Join(cut, ", ")))
	}
	resp.Note = strings.Join(notes, " ")
	return resp
}

// maxListing is how many tools a domain listing shows per page; larger
// domains are paged (page:N) and also browsable by group.
const maxListing = 50

func listDomain(d *Domain, group string, q *search.Query) domainResponse {
	resp := domainResponse{Domain: d.Name, Group: group, Tools: []toolSummary{}}
	var tools []*Tool
	for _, t := range d.Tools {
		if group == "" || t.Group == group {
			tools = append(tools, t)
		}
	}
	limit := maxListing
	if q.Limit != search.DefaultLimit {
		limit = q.Limit
	}
	from := min((q.Page-1)*limit, len(tools))
	to := min(from+limit, len(tools))
	for _, t := range tools[from:to] {
		s := toolSummary{Name: t.Name, Description: t.Summary}
		if group == "" {
			s.Group = t.Group
		}
		resp.Tools = append(resp.Tools, s)
	}
	if to < len(tools) || from > 0 {
		resp.Total = len(tools)
	}
	if to < len(tools) {
		resp.Next = fmt.Sprintf("page:%d", q.Page+1)
		resp.Note = fmt.Sprintf("Showing %d-%d of %d tools. For more, call again with query '%s', or browse by group.", from+1, to, len(tools), resp.Next)
	}
	if d.State != StateReady {
		resp.Status = d.State.String()
		resp.Note = unavailableDomainNote(d)
	}
	return resp
}

func unavailableDomainNote(d *Domain) string {
	if d.State == StateConnecting {
		return fmt.Sprintf("Domain '%s' is still connecting; try again shortly. Other domains are available.", d.Name)
	}
	if len(d.Tools) == 0 {
		return fmt.Sprintf("Domain '%s' is temporarily unavailable and its tools are unknown. Other domains are still available.", d.Name)
	}
	return fmt.Sprintf("Domain '%s' is temporarily unavailable: these are its last known tools, which cannot be called now. Other domains are still available.", d.Name)
}

// explainKey marks the context of an operator's explained search (see
// DiscoverExplained). Only the gateway sets it: a model cannot ask for
// explanations.
type explainKey struct{}

func explaining(ctx context.Context) bool {
	on, _ := ctx.Value(explainKey{}).(bool)
	return on
}

// DiscoverExplained is Discover with, for a ranked search, how the search
// read the query and each result's score and explanation: the words it
// matched, in which fields, what each signal did to its score, and the
// reranks that moved it (see search.Explanation).
func (g *Gateway) DiscoverExplained(ctx context.Context, args map[string]any) (text string, isError bool) {
	return g.Discover(context.WithValue(ctx, explainKey{}, true), args)
}

// searchTools ranks the tools in scope against the query's words; explain
// asks for each result's explanation.
func searchTools(c *Catalog, query string, q *search.Query, scope toolScope, explain bool) searchResponse {
	var allow func(int) bool
	if scope.domain != nil {
		allow = func(doc int) bool { return scope.contains(c.Tools[doc]) }
	}
	offset := (q.Page - 1) * q.Limit
	hits, total := c.index.Search(search.Request{Text: q.Text, Required: q.Required, Allow: allow, Offset: offset, Limit: q.Limit, Explain: explain})
	resp := searchResponse{Query: query, Domain: scope.domainName(), Group: scope.group, Results: make([]toolSummary, 0, len(hits)), Total: total}
	for _, h := range hits {
		t := c.Tools[h.Doc]
		s := toolSummary{Name: t.Name, Domain: t.Domain.Name, Group: t.Group, Description: t.Summary}
		if explain {
			if resp.Reading == nil {
				resp.Reading = h.Explanation.Request
			}
			// Only a hit of another ranking (a step's) says how that
			// ranking read its text.
			e := *h.Explanation
			if e.Request == resp.Reading {
				e.Request = nil
			}
			s.Score, s.Explanation = h.Score, &e
		}
		resp.Results = append(resp.Results, s)
	}
	resp.weak = len(hits) > 0 && offset == 0 && hits[0].Coverage < weakCoverage
	switch {
	case total == 0:
		resp.Note = noMatchNote(c, q.Text, scope.domain)
	case offset+len(hits) < total:
		resp.Next = nextPage(query, q.Page)
	}
	return resp
}

// maxRegexWork bounds the work of one regex query, in steps (a step is
// one instruction of the regex's program on one character, see
// search.MaxRegexSteps): about a second of a CPU. A short regex over
// 100,000 tools' names and descriptions takes a tenth of it.
const maxRegexWork = 1_000_000_000

// regexTools lists the tools in scope whose qualified name or description
// the regex matches, in catalog order: a page of them, with the total. It
// stops when the request's context ends, or when the regex has cost
// maxRegexWork, and then says how far it got.
func regexTools(ctx context.Context, c *Catalog, query string, q *search.Query, scope toolScope) searchResponse {
	resp := searchResponse{Query: query, Domain: scope.domainName(), Group: scope.group, Results: []toolSummary{}}
	offset := (q.Page - 1) * q.Limit
	work := 0
	for i, t := range c.Tools {
		if !scope.contains(t) {
			continue
		}
		work += (len(t.Name) + len(t.Description)) * max(q.RegexSteps, 1)
		if work > maxRegexWork || (i%64 == 0 && ctx.Err() != nil) {
			resp.Note = fmt.Sprintf("The regex was stopped after %d of %d tools: it costs too much to run over this catalog. Narrow it with domain:NAME, or use a simpler pattern or plain words.", i, len(c.Tools))
			return resp
		}
		if !(q.Regex.MatchString(t.Name) || q.Regex.MatchString(t.Description)) {
			continue
		}
		if resp.Total >= offset && len(resp.Results) < q.Limit {
			resp.Results = append(resp.Results, toolSummary{Name: t.Name, Domain: t.Domain.Name, Group: t.Group, Description: t.Summary})
		}
		resp.Total++
	}
	switch {
	case resp.Total == 0:
		resp.Note = "No tool name or description matches the regex. Regexes are RE2, case-insensitive; try a shorter pattern or plain words."
	case offset+len(resp.Results) < resp.Total:
		resp.Next = nextPage(query, q.Page)
	}
	return resp
}

// selectTools returns exactly the named tools, in the order named, and
// says which names are unknown (with close names).
func selectTools(c *Catalog, query string, names []string, scope toolScope) searchResponse {
	resp := searchResponse{Query: query, Domain: scope.domainName(), Group: scope.group, Results: []toolSummary{}}
	var unknown []string
	seen := make(map[*Tool]bool)
	for _, name := range names {
		t, err := c.Lookup(name)
		if err != nil {
			unknown = append(unknown, err.Error())
			continue
		}
		if !scope.contains(t) {
			unknown = append(unknown, fmt.Sprintf("'%s' is outside the scope of this query.", t.Name))
			continue
		}
		if !seen[t] {
			seen[t] = true
			resp.Results = append(resp.Results, toolSummary{Name: t.Name, Domain: t.Domain.Name, Group: t.Group, Description: t.Summary})
		}
	}
	resp.Total = len(resp.Results)
	if len(unknown) > 0 {
		resp.Note = strings.Join(unknown, " ")
	}
	return resp
}

// nextPage is the query that fetches the page after page.
func nextPage(query string, page int) string {
	var kept []string
	for _, tok := range strings.Fields(query) {
		if k, _, ok := strings.Cut(tok, ":"); !ok || !strings.EqualFold(k, "page") {
			kept = append(kept, tok)
		}
	}
	return strings.Join(append(kept, fmt.Sprintf("page:%d", page+1)), " ")
}

// noMatchNote tells the model what to do when a search finds nothing:
// names close to the query, if any, and how to browse instead.
func noMatchNote(c *Catalog, query string, domain *Domain) string {
	msg := fmt.Sprintf("No tools match '%s'.", query)
	if close := c.SuggestTools(query, 3); len(close) > 0 {
		msg += " Close names: " + strings.Join(close, ", ") + "."
	}
	if domain != nil {
		return msg + fmt.Sprintf(" Try other words, search all domains (omit domain), or browse with discover_tools(domain='%s').", domain.Name)
	}
	if close := suggestDomains(c, query); len(close) > 0 {
		msg += " Close domains: " + strings.Join(close, ", ") + "."
	}
	return msg + " Try other words, or browse a domain: " + domainList(c) + "."
}

// maxListedDomains bounds the domains an error or a note names: a
// gateway in front of hundreds of servers would otherwise spend a
// thousand tokens of the model's context on every miss.
const maxListedDomains = 20

// domainList names the catalog's domains, the first maxListedDomains of
// them when there are more, saying how to see the rest.
func domainList(c *Catalog) string {
	names := c.DomainNames()
	if len(names) <= maxListedDomains {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more (discover_tools() lists them all)", strings.Join(names[:maxListedDomains], ", "), len(names)-maxListedDomains)
}

func suggestDomains(c *Catalog, name string) []string {
	names := c.DomainNames()
	var out []string
	for _, i := range search.Suggest(name, names, 3) {
		out = append(out, names[i])
	}
	return out
}

func unknownDomainMessage(c *Catalog, name string) string {
	msg := fmt.Sprintf("Unknown domain '%s'.", echoed(name))
	if close := suggestDomains(c, name); len(close) > 0 {
		msg += " Did you mean " + orList(quoteAll(close)) + "?"
	}
	return msg + " Available domains: " + domainList(c)
}

func unknownGroupMessage(d *Domain, name string) string {
	if len(d.Groups) == 0 {
		return fmt.Sprintf("Unknown group '%s' in domain '%s', which has no groups (no tools known). Call discover_tools(domain='%s').", echoed(name), d.Name, d.Name)
	}
	return fmt.Sprintf("Unknown group '%s' in domain '%s'. Available groups: %s", echoed(name), d.Name, strings.Join(d.Groups, ", "))
}

func groupWithoutDomainMessage(c *Catalog, group string) string {
	var in []string
	for _, d := range c.Domains {
		if _, ok := d.HasGroup(group); ok {
			in = append(in, d.Name)
		}
	}
	msg := "'group' requires 'domain': groups belong to a domain."
	if len(in) > 0 {
		return msg + fmt.Sprintf(" Group '%s' is in: %s.", group, strings.Join(in, ", "))
	}
	return msg + " Call discover_tools() to see each domain's groups."
}
