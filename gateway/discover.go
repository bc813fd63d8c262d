package gateway

import (
	"context"
	"fmt"
	"strings"

	"github.com/caddy-mcp/mcp-gateway/search"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// defaultSearchLimit is how many results a query returns.
const defaultSearchLimit = 10

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
	}
	domainResponse struct {
		Domain string        `json:"domain"`
		Group  string        `json:"group,omitempty"`
		Status string        `json:"status,omitempty"`
		Tools  []toolSummary `json:"tools"`
		Note   string        `json:"note,omitempty"`
	}
	searchResponse struct {
		Query   string        `json:"query"`
		Domain  string        `json:"domain,omitempty"`
		Group   string        `json:"group,omitempty"`
		Results []toolSummary `json:"results"`
		Total   int           `json:"total"`
		Note    string        `json:"note,omitempty"`
	}
)

// discoverTools implements discover_tools: the domain table of contents,
// one domain, one group, or a ranked search (optionally scoped).
func (g *Gateway) discoverTools(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	g.awaitStartup(ctx)
	args, err := decodeArgs(DiscoverToolsName, req.Params.Arguments, discoverArgs)
	if err != nil {
		return errorResult(ErrInvalidArguments, err.Error()), nil
	}
	c := g.Catalog()
	domainName, groupName, query := args.str("domain"), args.str("group"), args.str("query")
	if len(query) > maxQueryLen {
		return errorResult(ErrInvalidArguments, fmt.Sprintf("query is %d bytes; the limit is %d. Use a few keywords.", len(query), maxQueryLen)), nil
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
		g, ok := domain.HasGroup(groupName)
		if !ok {
			return errorResult(ErrUnknownGroup, unknownGroupMessage(domain, groupName)), nil
		}
		groupName = g
	}
	switch {
	case query != "":
		return jsonResult(searchTools(c, query, domain, groupName)), nil
	case domain != nil:
		return jsonResult(listDomain(domain, groupName)), nil
	default:
		return jsonResult(listDomains(c)), nil
	}
}

func listDomains(c *Catalog) domainsResponse {
	resp := domainsResponse{Domains: make([]domainSummary, 0, len(c.Domains))}
	var down []string
	for _, d := range c.Domains {
		s := domainSummary{Name: d.Name, Description: d.Description, ToolCount: len(d.Tools), Groups: d.Groups}
		if d.State != StateReady {
			s.Status = d.State.String()
			down = append(down, d.Name)
		}
		resp.Domains = append(resp.Domains, s)
		resp.TotalTools += len(d.Tools)
	}
	if len(down) > 0 {
		resp.Note = fmt.Sprintf("Temporarily unavailable: %s. Tools in other domains work.", strings.Join(down, ", "))
	}
	return resp
}

func listDomain(d *Domain, group string) domainResponse {
	resp := domainResponse{Domain: d.Name, Group: group, Tools: []toolSummary{}}
	for _, t := range d.Tools {
		switch {
		case group == "":
			resp.Tools = append(resp.Tools, toolSummary{Name: t.Name, Group: t.Group, Description: t.Summary})
		case t.Group == group:
			resp.Tools = append(resp.Tools, toolSummary{Name: t.Name, Description: t.Summary})
		}
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

func searchTools(c *Catalog, query string, domain *Domain, group string) searchResponse {
	allow := func(doc int) bool {
		t := c.Tools[doc]
		return (domain == nil || t.Domain == domain) && (group == "" || t.Group == group)
	}
	if domain == nil && group == "" {
		allow = nil
	}
	hits, total := c.index.Search(query, defaultSearchLimit, allow)
	resp := searchResponse{Query: query, Group: group, Results: make([]toolSummary, 0, len(hits)), Total: total}
	if domain != nil {
		resp.Domain = domain.Name
	}
	for _, h := range hits {
		t := c.Tools[h.Doc]
		resp.Results = append(resp.Results, toolSummary{Name: t.Name, Domain: t.Domain.Name, Group: t.Group, Description: t.Summary})
	}
	switch {
	case total == 0:
		resp.Note = noMatchNote(c, query, domain)
	case total > len(hits):
		resp.Note = fmt.Sprintf("Showing the best %d of %d matches; add words to narrow the search.", len(hits), total)
	}
	return resp
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
	return msg + " Try other words, or browse a domain: " + strings.Join(c.DomainNames(), ", ") + "."
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
	msg := fmt.Sprintf("Unknown domain '%s'.", name)
	if close := suggestDomains(c, name); len(close) > 0 {
		msg += " Did you mean " + orList(quoteAll(close)) + "?"
	}
	return msg + " Available domains: " + strings.Join(c.DomainNames(), ", ")
}

func unknownGroupMessage(d *Domain, name string) string {
	if len(d.Groups) == 0 {
		return fmt.Sprintf("Unknown group '%s' in domain '%s', which has no groups (no tools known). Call discover_tools(domain='%s').", name, d.Name, d.Name)
	}
	return fmt.Sprintf("Unknown group '%s' in domain '%s'. Available groups: %s", name, d.Name, strings.Join(d.Groups, ", "))
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
