package search

import (
	"slices"
	"testing"
)

func TestPluralsOf(t *testing.T) {
	for text, want := range map[string][]string{
		"Which labels get used most in the acme/api repo?": {"label"},
		"Show the repos octocat has starred":               {"repo"},
		"all acknowledged alert groups":                    {"group"},
		// Not plurals: a word that ends in s but whose stem is its own,
		// -ss, -us and -is words, and spans of time.
		"today's news":                    nil,
		"the status of the build":         nil,
		"run an analysis of the logs":     {"log"},
		"commits of the past 30 days":     {"commit"},
		"what happened in the last weeks": nil,
		"npm libraries like moment":       nil,
		"songs similar to this one":       nil,
		// Plurals in -es after s, x, z, ch or sh.
		"List the businesses linked to customer 4521": {"busi"},
		"mailing addresses, boxes and matches":        {"address", "box", "match"},
		// What follows a place preposition says where, not what is asked
		// about; "of" is no place here, nor a preposition run into a
		// camelCase name.
		"What label keys are available in Pyroscope profiles?": {"key"},
		"the files in my downloads folder":                     {"file"},
		"files on shared drives":                               {"file"},
		"the names of the branches":                            {"name", "branch"},
		"all acknowledged OnCall alert groups":                 {"group"},
		// Quoted text is what to act on, not what is asked about.
		"Reply 'Thanks, looks good' to the posts": {"post"},
		// A path or URL names one thing.
		"Start a deck from the template /templates/company.pptx":      nil,
		"Pull the JSON data from https://api.github.com/repos/nodejs": nil,
	} {
		var got []string
		for _, p := range pluralsOf(text) {
			got = append(got, p.stem)
		}
		if !slices.Equal(got, want) {
			t.Errorf("pluralsOf(%q) gives the stems %q, want %q", text, got, want)
		}
	}
}

// TestSearchListsWhatIsAskedForInThePlural checks that a request about
// several things of a kind finds the tool that lists them before the ones
// that get or act on one of them, and that a request that searches for
// things about a topic does not.
func TestSearchListsWhatIsAskedForInThePlural(t *testing.T) {
	// Tools of Grafana's, MongoDB's and arXiv's MCP servers, as published.
	docs := []Document{
		{Name: "get_alert_group", Description: "Get a specific alert group from Grafana OnCall by its ID. Returns the full alert group details, including the most recent alert and its raw payload when the OnCall API provides them. Alert payloads carry integration-specific fingerprints (for example Sentry's payload.data.event.hashes or Alertmanager's payload.alerts[].fingerprint) that identify recurring alerts across different alert groups.", ParamNames: "alertGroupId", Domain: "grafana"},
		{Name: "list_alert_groups", Description: "List alert groups from Grafana OnCall with filtering options. Supports filtering by alert group ID, route ID, integration ID, state (new, acknowledged, resolved, silenced), team ID, time range, labels, and name. For time ranges, use format '{start}_{end}' ISO 8601 timestamp range (e.g., '2025-01-19T00:00:00_2025-01-19T23:59:59' for a specific day). For labels, use format 'key:value' (e.g., ['env:prod', 'severity:high']). Returns a list of alert group objects with their details. Supports pagination.", ParamNames: "id integrationId labels name page routeId startedAt state teamId", Domain: "grafana"},
		{Name: "update_alert_group", Description: "Update the state of a Grafana OnCall alert group: acknowledge, unacknowledge, resolve, or unresolve it by ID. Returns the alert group's resulting OnCall state (one of new, acknowledged, resolved, silenced), or a stateWarning explaining why that state could not be read back after a successful update.", ParamNames: "alertGroupId state", Domain: "grafana"},
		{Name: "count", Description: "Gets the number of documents in a MongoDB collection using db.collection.count() and query as an optional filter parameter", ParamNames: "collection connectionId database query", Domain: "mongodb"},
		{Name: "search-knowledge", Description: "Search for information in the MongoDB Assistant knowledge base. This includes official documentation, curated expert guidance, and other resources provided by MongoDB. Supports filtering by data source and version.", ParamNames: "dataSources limit query", Domain: "mongodb"},
		{Name: "list-knowledge-sources", Description: "List available data sources in the MongoDB Assistant knowledge base. Use this to explore available data sources or to find search filter parameters to use in search-knowledge.", Domain: "mongodb"},
		{Name: "search_papers", Description: "Search for papers on arXiv with advanced filtering", ParamNames: "categories date_from date_to max_results query", Domain: "arxiv"},
		{Name: "list_papers", Description: "List all existing papers available as resources", Domain: "arxiv"},
		{Name: "read_paper", Description: "Read the full content of a stored paper in markdown format", ParamNames: "paper_id", Domain: "arxiv"},
		{Name: "download_paper", Description: "Download a paper and create a resource for it", ParamNames: "check_status paper_id", Domain: "arxiv"},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Show me all acknowledged OnCall alert groups from yesterday.", 1)
	wantFirst(t, ix, docs, "What documentation sources can I filter the database knowledge base by?", 5)
	wantFirst(t, ix, docs, "find papers on arxiv about diffusion models", 6)
}

// TestPluralListingLeavesSearchesAlone checks that a request that
// searches for things about a topic is no request to list them all.
func TestPluralListingLeavesSearchesAlone(t *testing.T) {
	docs := pluralListing{}.newDocs(0)
	for text, asks := range map[string]bool{
		"find papers on arxiv about diffusion models": false,
		"search my notes for recipes":                 false,
		"please look up flights to Rome":              false,
		"show me all the papers I have stored":        true,
		"which labels are used most":                  true,
	} {
		if got := docs.query(&ranking{text: text}) != nil; got != asks {
			t.Errorf("%q: plural listing applies %v, want %v", text, got, asks)
		}
	}
}

// TestPluralNamedToolsList checks that a request that asks about several
// things of a kind finds the tool named for them in the plural before the
// one named for one of them, and that neither a request that acts nor a
// tool that searches counts as a listing.
func TestPluralNamedToolsList(t *testing.T) {
	// Tools of Check Point's, Pipedrive's and arXiv's MCP servers, as
	// published.
	docs := []Document{
		{Name: "show_vpn_community_remote_access", Description: "Show a VPN Community Remote Access object by name or UID (at least one is required).", ParamNames: "details_level domain name uid", Domain: "checkpoint"},
		{Name: "show_vpn_communities_remote_access", Description: "Show all VPN Community Remote Access objects, with optional filtering and detail level.", ParamNames: "details_level domain domains_to_process filter limit offset order show_only_local_domain", Domain: "checkpoint"},
		{Name: "get-pipeline", Description: "Get a specific pipeline by ID", ParamNames: "pipelineId", Domain: "pipedrive"},
		{Name: "get-pipelines", Description: "Get all pipelines from Pipedrive", Domain: "pipedrive"},
		{Name: "search_papers", Description: "Search for papers on arXiv with advanced filtering", ParamNames: "categories date_from date_to max_results query", Domain: "arxiv"},
		{Name: "read_paper", Description: "Read the full content of a stored paper in markdown format", ParamNames: "paper_id", Domain: "arxiv"},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Which remote access VPN communities do we have set up?", 1)
	wantFirst(t, ix, docs, "Which pipelines do we have?", 3)

	// Which tools the signal grows, as the explanation tells it.
	for text, want := range map[string][]string{
		"Which pipelines do we have?": {"get-pipelines"},
		// A request that acts is no request to list, and a tool that
		// searches lists nothing.
		"Archive the old pipelines":           nil,
		"Which papers about diffusion exist?": nil,
	} {
		if grown := movedBy(ix, docs, text, "plural listing"); !slices.Equal(grown, want) {
			t.Errorf("%q: plural listing grows %q, want %q", text, grown, want)
		}
	}
}

// A tool whose name says it takes several things is named in the plural
// for what it is given, not for what it lists: "what files are in my
// Downloads folder" lists the folder, not read_multiple_files.
func TestPluralListingLeavesToolsThatTakeSeveralAlone(t *testing.T) {
	// Tools of the filesystem MCP server, as published.
	docs := []Document{
		{Name: "read_multiple_files", Description: "Read the contents of multiple files simultaneously. Failed reads for individual files won't stop the entire operation.", ParamNames: "paths"},
		{Name: "list_directory", Description: "Get a detailed listing of all files and directories in a specified path. Results clearly distinguish between files and directories with [FILE] and [DIR] prefixes.", ParamNames: "path"},
	}
	ix := NewIndex(docs)
	if grown := movedBy(ix, docs, "What files are in my ~/Downloads folder?", "plural listing"); len(grown) != 0 {
		t.Errorf("plural listing grows %q, want none", grown)
	}
	wantFirst(t, ix, docs, "What files are in my ~/Downloads folder?", 1)
}
