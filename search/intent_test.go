package search

import (
	"slices"
	"testing"
)

func TestRequestIntent(t *testing.T) {
	for text, want := range map[string]intent{
		"What's on slide 3 of my presentation?":     intentRead,
		"how many slides does deck.pptx have":       intentRead,
		"Show me the JavaScript errors on the page": intentRead,
		"Can you tell me who owns example.com":      intentRead,
		"Tell Lisa in Teams that I'm running late":  intentChange,
		"Tell us what changed":                      intentRead,
		"Anything new on Hacker News today?":        intentRead,
		"Put chart.svg onto slide 2":                intentChange,
		"please rename report.docx to final.docx":   intentChange,
		"I want to delete the draft note":           intentChange,
		"Let's create a new folder called invoices": intentChange,
		"Refresh the saved arXiv category list":     intentChange,
		"Pick 'Canada' from the country dropdown":   intentChange,
		"Unstage everything I added":                intentChange,
		"Rerun the failed build":                    intentChange,
		"Take the draft label off":                  intentUnknown,
		"Get request logs of https://x.io/users":    intentUnknown,
		"How big is report.pptx, and does it exist": intentRead,
		"Unread mail":                              intentUnknown,
		"Check whether deck.pptx exists":           intentRead,
		"Bitcoin price":                            intentUnknown,
		"find flights from Paris to Rome":          intentRead,
		"Search my notes for the Q3 plan":          intentRead,
		"Find and replace 'foo' in notes.txt":      intentChange,
		"Pull my seller orders from the past week": intentRead,
		"Pull up knowledge base article 4021":      intentRead,
		"Set up a webhook for new orders":          intentChange,
		"grab the error logs":                      intentRead,
		// "have" asks what its object is to do, or asks a question.
		"Have our booking assistant call +1 212 555 0187": intentUnknown,
		"Have the assistant send Ana the invoice":         intentChange,
		"Have my notes finished syncing yet?":             intentRead,
		"Has the build been deployed":                     intentRead,
		"have you got the report":                         intentRead,
		"Check and update the broken links":               intentChange,
		"":                                                intentUnknown,
		"please":                                          intentUnknown,
		"八字 of a boy born on August 8, 2008":              intentUnknown,
	} {
		if got := requestIntent(text); got != want {
			t.Errorf("requestIntent(%q) = %d, want %d", text, got, want)
		}
	}
}

func TestToolIntent(t *testing.T) {
	for _, c := range []struct {
		name, description string
		want              intent
	}{
		{"get_slide_info", "Get information about a slide.", intentRead},
		{"listMemoryProjects", "", intentRead},
		{"playwright_console_logs", "Retrieve the browser's console logs.", intentRead},
		{"add_slide", "Add a slide.", intentChange},
		{"delete_entities", "Delete entities from the knowledge graph.", intentChange},
		// No verb in the name: the description's first verb decides,
		// past "This tool", "A tool that" and the like.
		{"pdf_merger", "Merges several PDF files into one.", intentChange},
		{"trial_getter", "Fetches the details of a clinical trial.", intentRead},
		{"whois_domain", "This tool returns the registration record of a domain.", intentRead},
		{"canvas", "A tool that creates a canvas file.", intentChange},
		// The name's first verb decides.
		{"get_book", "", intentRead},
		{"list_new_items", "", intentRead},
		{"create_or_get_user", "", intentChange},
		{"upsert_account_balance_history", "Create or update balance history entries.", intentChange},
		{"configure_gemini_token", "", intentChange},
		{"force_terminate", "Force terminate a running terminal session.", intentChange},
		{"calculate_route", "", intentRead},
		{"detect_language", "", intentRead},
		{"download_paper", "Download a paper and create a resource for it.", intentChange},
		// Answering and passing on a message send one.
		{"reply-mail-message", "Reply to the sender of a message.", intentChange},
		{"forward_email", "", intentChange},
		// A verb of change undone or done again changes too.
		{"git_unstage", "", intentChange},
		{"git_staging", "Unstages all staged changes.", intentChange},
		{"research_topic", "", intentUnknown}, // "search" reads
		// A verb of change joined to the first verb: the tool changes.
		{"search_and_replace", "Search for text and replace it in a document.", intentChange},
		{"read_then_save_file", "", intentChange},
		{"get_or_list_users", "", intentRead},
		// A description that converts says what the tool maps, which
		// answers questions as well; a name that converts changes.
		{"geocode_address", "Convert an address or place name to geographic coordinates.", intentUnknown},
		{"convert_to_pdf", "Convert a document to PDF.", intentChange},
		// Neither: unknown.
		{"chroma_cqt", "Constant-Q chromagram of an audio signal.", intentUnknown},
		{"", "", intentUnknown},
	} {
		if got := toolIntent(Words(c.name), c.description); got != c.want {
			t.Errorf("toolIntent(%q, %q) = %d, want %d", c.name, c.description, got, c.want)
		}
	}
}

// A question ranks the tool that reports above the one that changes, and
// a command the other way round, where both match the request's words.
func TestIntentOrdersReadingAndChangingTools(t *testing.T) {
	docs := []Document{
		{Name: "add_slide", Description: "Add a slide to a presentation, after a given slide number."},
		{Name: "get_slide_info", Description: "Get detailed information about one slide: its layout, shapes and text."},
		{Name: "delete_slide", Description: "Delete a slide from a presentation by its number."},
	}
	ix := NewIndex(docs)
	for query, want := range map[string]string{
		"What's on slide 3 of my presentation?": "get_slide_info",
		"show me slide 3 of the presentation":   "get_slide_info",
		"Remove slide 3 from my presentation":   "delete_slide",
	} {
		hits, _ := ix.Search(Request{Text: query, Limit: 3})
		if len(hits) == 0 || docs[hits[0].Doc].Name != want {
			var got []string
			for _, h := range hits {
				got = append(got, docs[h.Doc].Name)
			}
			t.Errorf("%q ranks %v, want %s first", query, got, want)
		}
	}
}

// A request to change finds the tool that reads and then changes
// (search_and_replace) before those that only change the same thing.
func TestIntentReadsAJoinedVerbOfChange(t *testing.T) {
	docs := []Document{
		{Name: "copy_document", Description: "Create a copy of a Word document.", Params: "source_filename Path to the source document"},
		{Name: "search_and_replace", Description: "Search for text and replace all occurrences.", Params: "filename Path to the Word document find_text Text to search for replace_text Text to replace with"},
		{Name: "protect_document", Description: "Add password protection to a Word document.", Params: "filename Path to the Word document password Password to protect the document with"},
	}
	hits, _ := NewIndex(docs).Search(Request{Text: "Replace every 'Acme Corp' with 'Globex' in contract.docx", Limit: 3})
	if len(hits) == 0 || docs[hits[0].Doc].Name != "search_and_replace" {
		t.Errorf("replace in a document: %v, want search_and_replace first", hits)
	}
}

// TestIntentKeepsTheOnlyToolOfTheObject checks that the ask-or-act signal
// does not sink a tool of the other kind that holds what the request is
// about when no tool of the kind asked for holds any of it: "add two
// numbers" is arithmetic, not an add of observations; "generate an
// image" asks for an image, whichever verb gives it. A word every tool
// of a domain holds through its description does not count. Where a
// tool of the kind asked for holds it too, the signal decides as before.
func TestIntentKeepsTheOnlyToolOfTheObject(t *testing.T) {
	docs := []Document{
		{Name: "add_observations", Description: "Add new observations to existing entities in the knowledge graph", Domain: "memory", DomainDescription: "Knowledge graph memory"},
		{Name: "create_entities", Description: "Create multiple new entities in the knowledge graph", Domain: "memory", DomainDescription: "Knowledge graph memory"},
		{Name: "get-sum", Description: "Returns the sum of two numbers", Domain: "everything", DomainDescription: "Feature showcase: echo, sums, images"},
		{Name: "get-tiny-image", Description: "Returns a tiny MCP logo image.", Domain: "everything", DomainDescription: "Feature showcase: echo, sums, images"},
		{Name: "gzip-file", Description: "Compresses a single file using gzip.", Domain: "everything", DomainDescription: "Feature showcase: echo, sums, images"},
		{Name: "get_slide_info", Description: "Get information about a specific slide."},
		{Name: "add_slide", Description: "Add a new slide to the presentation."},
	}
	ix := NewIndex(docs)
	for _, c := range []struct {
		request   string
		doc       int
		penalised bool
	}{
		{"add two numbers", 2, false},
		{"generate an image", 3, false},
		{"add a slide", 5, true},
	} {
		hits, _ := ix.Search(Request{Text: c.request, Limit: 10, Explain: true})
		found := false
		for _, h := range hits {
			if h.Doc != c.doc {
				continue
			}
			found = true
			penalised := slices.ContainsFunc(h.Explanation.Signals, func(s SignalScore) bool { return s.Signal == "ask or act" })
			if penalised != c.penalised {
				t.Errorf("%q: %s penalised by ask or act: %v, want %v\n%s", c.request, docs[c.doc].Name, penalised, c.penalised, h.Explanation)
			}
		}
		if !found {
			t.Errorf("%q: %s not found", c.request, docs[c.doc].Name)
		}
	}
}

// A tool whose description opens with the request's own verb is what the
// request asks for, whichever kind its name says: "download" changes and
// "fetch" reads, but fetch_evidence_content says it downloads. Its
// neighbour that uploads stays penalised for a question.
func TestIntentSparesTheToolOfTheRequestsOwnVerb(t *testing.T) {
	docs := []Document{
		{Name: "upload_evidence_file", Description: "Upload a file as evidence for a payment dispute.", Params: "dispute_id file_name file_type"},
		{Name: "fetch_evidence_content", Description: "Download evidence file content from a payment dispute.", Params: "dispute_id evidence_id"},
		{Name: "add_evidence", Description: "Add evidence to support your case in a payment dispute.", Params: "dispute_id evidence_type"},
	}
	ix := NewIndex(docs)
	penalised := func(request, name string) bool {
		t.Helper()
		hits, _ := ix.Search(Request{Text: request, Limit: 3, Explain: true})
		for _, h := range hits {
			if docs[h.Doc].Name == name {
				return slices.ContainsFunc(h.Explanation.Signals, func(s SignalScore) bool { return s.Signal == "ask or act" })
			}
		}
		t.Fatalf("%q: %s not found", request, name)
		return false
	}
	if penalised("Download the evidence file we attached to payment dispute 5-1234567", "fetch_evidence_content") {
		t.Error("download: fetch_evidence_content, which says it downloads, penalised by ask or act")
	}
	if !penalised("Upload the evidence file for payment dispute 5-1234567", "fetch_evidence_content") {
		t.Error("upload: fetch_evidence_content, which reads, not penalised by ask or act")
	}
	if !penalised("What evidence is on payment dispute 5-1234567?", "upload_evidence_file") {
		t.Error("a question: upload_evidence_file not penalised by ask or act")
	}
}

// A request of several steps asks as a whole what each of its steps asks,
// when they agree.
func TestStepsIntent(t *testing.T) {
	for text, want := range map[string]intent{
		"Is example.com/blog/launch indexed on Google, and what's its canonical?": intentRead,
		"Delete the draft, then remove the old sitemap":                           intentChange,
		"Read the sheet, then plot it":                                            intentUnknown,
		"What's in the sheet, then plot it":                                       intentUnknown,
		// A step that is a question asks, whatever its first word.
		"Any notes left on document 774? Show me all of them.": intentRead,
	} {
		steps := splitSteps(text)
		if len(steps) < 2 {
			t.Fatalf("%q: %d steps, want several", text, len(steps))
		}
		if got := stepsIntent(steps); got != want {
			t.Errorf("stepsIntent(%q) = %v, want %v", steps, got, want)
		}
	}
}

// descriptionVerb reads the first word past the leading ones, in the
// first words or, failing them, the rest of the description's lead.
func TestDescriptionVerb(t *testing.T) {
	for description, want := range map[string]string{
		"Download evidence file content from a payment dispute.":                          "download",
		"This tool creates a new issue in the given repository.":                          "creates",
		"A tool that will allows you to use it to lists the things it can be used to see": "lists",
		"This": "",
		"":     "",
		"the a an the a an the a an the a an the a an tool that which lists repositories": "lists",
		// Adverbs before the verb are passed; verbs in -ly are not.
		"Permanently delete all files in trash": "delete",
		"Apply a label to a message":            "apply",
		"Asynchronously run a build job":        "run",
	} {
		if got := descriptionVerb(description); got != want {
			t.Errorf("descriptionVerb(%q) = %q, want %q", description, got, want)
		}
	}
}

// A question about a setup asks for the tool that reports it, not for one
// that configures it or one named for another kind of setup.
func TestQuestionAboutASetupFindsTheToolThatReportsIt(t *testing.T) {
	docs := []Document{
		{Name: "practice_setup", Description: "Get a recommended practice configuration for a song: speed, mode and voice.", Domain: "music"},
		{Name: "practice_status", Description: "Check progress on the current practice loop.", Domain: "music"},
		{Name: "tune_guitar", Description: "Tune the guitar voice: strings, tension and body.", Domain: "music"},
		{Name: "import_midi", Description: "Import a MIDI file as a song.", Domain: "music"},
		{Name: "list_voices", Description: "List the instrument voices and their settings.", Domain: "music"},
		{Name: "score_take", Description: "Score a recorded take against the song.", Domain: "music"},
		{Name: "get_configuration_status", Description: "Check if the Gemini API token is configured.", Domain: "images"},
		{Name: "configure_gemini_token", Description: "Configure your Gemini API token for image generation.", Params: "token Your Gemini API token", ParamNames: "token", Domain: "images"},
	}
	wantFirst(t, NewIndex(docs), docs, "Is my Gemini API key set up yet?", 6)
}

// A request to show a history ranks the tool that gets it above the one
// that upserts it.
func TestShowingRanksGettingAboveUpserting(t *testing.T) {
	docs := []Document{
		{Name: "upsert_account_balance_history", Description: "Create or update monthly balance history entries for a single account.", Params: "account_id The account balances monthly entries", ParamNames: "account_id balances"},
		{Name: "get_account_balance_history", Description: "Get monthly balance history for a single account.", Params: "account_id The account", ParamNames: "account_id"},
	}
	wantFirst(t, NewIndex(docs), docs, "Show monthly balance history for my savings account this year.", 1)
}

// Setting up a new thing creates it: "set up a new warehouse location"
// asks for the tool that creates one, not for those that update or get
// one.
func TestSettingUpANewThingCreatesIt(t *testing.T) {
	docs := []Document{
		{Name: "update_inventory_location", Description: "Update an inventory location", Params: "key The location key address The address", ParamNames: "key address"},
		{Name: "create_inventory_location", Description: "Create an inventory location", Params: "key The location key address The address", ParamNames: "key address"},
		{Name: "get_inventory_location", Description: "Get an inventory location", Params: "key The location key", ParamNames: "key"},
	}
	wantFirst(t, NewIndex(docs), docs, "Set up a new warehouse location NJ-EDISON at 100 Main St, Edison NJ.", 1)
}
