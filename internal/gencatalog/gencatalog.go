// Package gencatalog generates large, varied tool catalogs for scale
// benchmarks: plausible services, each with tools named and described the
// way real MCP servers name and describe theirs. The same seed and size
// always give the same catalog.
package gencatalog

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Tool is one generated tool.
type Tool struct {
	Domain      string
	Name        string
	Description string
	// Params maps parameter names to their descriptions.
	Params map[string]string
	// Schema is the JSON Schema of the parameters.
	Schema map[string]any
}

// Service is a generated domain and its description.
type Service struct {
	Name        string
	Description string
}

var (
	prefixes = []string{"acme", "nova", "blue", "swift", "data", "cloud", "open", "hyper", "quick", "bright", "true", "meta", "omni", "zen", "core", "peak", "sky", "iron", "next", "sun"}
	suffixes = []string{"desk", "hub", "flow", "base", "track", "ly", "ify", "stack", "works", "cast", "pay", "ops", "mail", "link", "sync", "vault", "board", "note", "grid", "scope"}
	areas    = []string{
		"customer support tickets", "sales pipeline and deals", "invoices and payments", "cloud infrastructure",
		"source code and pull requests", "team chat and channels", "calendar and meetings", "documents and wikis",
		"marketing email campaigns", "product analytics", "HR records and payroll", "inventory and warehouses",
		"shipping and logistics", "social media posts", "video conferencing", "file storage and sharing",
		"project tasks and sprints", "security alerts and incidents", "database administration", "travel bookings",
		"weather and climate data", "stock market data", "news articles", "maps and geocoding", "recipes and nutrition",
		"music playback", "photo libraries", "e-signatures", "surveys and forms", "learning courses",
	}
	resources = []string{
		"ticket", "deal", "invoice", "payment", "customer", "contact", "company", "user", "team", "channel",
		"message", "event", "meeting", "document", "page", "campaign", "report", "dashboard", "metric", "employee",
		"order", "product", "shipment", "warehouse", "post", "comment", "file", "folder", "project", "task",
		"sprint", "alert", "incident", "database", "table", "query", "booking", "flight", "hotel", "forecast",
		"quote", "article", "route", "place", "recipe", "playlist", "track", "album", "photo", "signature",
		"survey", "response", "course", "lesson", "repository", "branch", "commit", "issue", "webhook", "subscription",
	}
	actions = []struct {
		verb, phrase string
	}{
		{"create", "Create a new %s"}, {"get", "Get a single %s by its ID"}, {"list", "List %ss with optional filters"},
		{"update", "Update fields of an existing %s"}, {"delete", "Permanently delete a %s"},
		{"search", "Search %ss by keyword, status or date range"}, {"export", "Export %ss as CSV or JSON"},
		{"archive", "Archive a %s so it no longer appears in default views"}, {"assign", "Assign a %s to a user or team"},
		{"comment", "Add a comment to a %s"}, {"count", "Count %ss matching a filter"},
		{"summarize", "Summarize recent activity on a %s"}, {"duplicate", "Make a copy of a %s"},
		{"share", "Share a %s with people outside the workspace"}, {"tag", "Add or remove tags on a %s"},
	}
	extras = []string{
		"Returns the full record as JSON.", "Supports pagination with a cursor.", "Requires admin permissions.",
		"Results are sorted by last update, newest first.", "Use this before making changes to confirm the current state.",
		"Dates use ISO 8601.", "Rate limited to 10 calls per second.", "Only works within the current workspace.",
		"", "", "",
	}
	qualifiers = []string{
		"archived", "recurring", "draft", "shared", "overdue", "pending", "approved", "rejected", "flagged", "starred",
		"private", "public", "internal", "external", "billable", "refunded", "disputed", "escalated", "resolved", "stale",
		"duplicate", "scheduled", "published", "expired", "verified", "unverified", "encrypted", "pinned", "muted", "critical",
	}
	fields = []string{
		"owner", "due date", "priority", "status", "labels", "attachments", "currency", "amount", "region", "timezone",
		"assignee", "reviewer", "deadline", "budget", "quota", "locale", "address", "phone number", "email address", "score",
		"category", "severity", "version", "checksum", "thumbnail", "duration", "language", "permissions", "retention policy", "audit log",
	}
	paramPool = map[string]string{
		"id": "The unique identifier", "query": "Free-text search terms", "limit": "Maximum number of results (default 20)",
		"cursor": "Pagination cursor from a previous call", "status": "Filter by status, e.g. open or closed",
		"owner": "User ID of the owner", "from_date": "Start of the date range (ISO 8601)", "to_date": "End of the date range (ISO 8601)",
		"title": "Short title", "body": "Main text content", "tags": "List of tags", "team_id": "Team that owns it",
		"format": "Output format: csv or json", "priority": "Priority from 1 (highest) to 5",
	}
	paramNames = []string{"id", "query", "limit", "cursor", "status", "owner", "from_date", "to_date", "title", "body", "tags", "team_id", "format", "priority"}
)

// Generate returns n tools spread over about n/40 services (at least 1),
// from seed.
func Generate(n int, seed uint64) ([]Service, []Tool) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	numServices := max(1, n/40)
	services := make([]Service, numServices)
	used := make(map[string]bool)
	for i := range services {
		name := ""
		for name == "" || used[name] {
			name = prefixes[r.IntN(len(prefixes))] + suffixes[r.IntN(len(suffixes))]
			if used[name] {
				name = fmt.Sprintf("%s%d", name, i)
			}
		}
		used[name] = true
		area := areas[r.IntN(len(areas))]
		services[i] = Service{Name: name, Description: fmt.Sprintf("%s: %s for teams, with an API for %s.", strings.ToUpper(name[:1])+name[1:], area, area)}
	}
	tools := make([]Tool, 0, n)
	names := make(map[string]bool)
	for len(tools) < n {
		s := services[len(tools)%numServices]
		res := resources[r.IntN(len(resources))]
		act := actions[r.IntN(len(actions))]
		name := fmt.Sprintf("%s_%s_%s", s.Name, act.verb, res)
		if act.verb == "list" || act.verb == "search" || act.verb == "export" || act.verb == "count" {
			name += "s"
		}
		if names[name] {
			name = fmt.Sprintf("%s_v%d", name, len(tools))
		}
		names[name] = true
		desc := fmt.Sprintf(act.phrase, res) + " in " + strings.ToUpper(s.Name[:1]) + s.Name[1:] + ". " +
			fmt.Sprintf("Works with %s %ss and their %s and %s. ", qualifiers[r.IntN(len(qualifiers))], res, fields[r.IntN(len(fields))], fields[r.IntN(len(fields))]) +
			extras[r.IntN(len(extras))]
		params := map[string]string{}
		props := map[string]any{}
		for range 1 + r.IntN(5) {
			p := paramNames[r.IntN(len(paramNames))]
			params[p] = paramPool[p]
			props[p] = map[string]any{"type": "string", "description": paramPool[p]}
		}
		tools = append(tools, Tool{
			Domain:      s.Name,
			Name:        name,
			Description: strings.TrimSpace(desc),
			Params:      params,
			Schema:      map[string]any{"type": "object", "properties": props},
		})
	}
	return services, tools
}

// Queries returns n search queries in the words of the catalog: a
// resource with an action or a status, sometimes a service name.
func Queries(services []Service, n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]string, n)
	for i := range out {
		res := resources[r.IntN(len(resources))]
		act := actions[r.IntN(len(actions))]
		switch r.IntN(3) {
		case 0:
			out[i] = act.verb + " " + res
		case 1:
			out[i] = act.verb + " " + res + "s in " + services[r.IntN(len(services))].Name
		default:
			out[i] = "find open " + res + "s from last week"
		}
	}
	return out
}
