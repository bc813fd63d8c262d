package search

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestSplitLocators(t *testing.T) {
	type split struct{ rest, kinds, payload, dirs string }
	for in, want := range map[string]split{
		"save it in /root/markdown/bitcoin.md":       {"save it in", "file markdown md", "bitcoin", "/root/markdown"},
		"Read the file /root/word/exchange.docx, ok": {"Read the file ok", "file word document docx", "exchange", "/root/word"},
		"open https://www.youtube.com/watch?v=arj7o": {"open", "url", "youtube /watch?v=arj7o", ""},
		"see http://user@api.github.com:8080/x":      {"see", "url", "api github /x", ""},
		"go on from memory://projects/redesign":      {"go on from", "url memory", "projects /redesign", ""},
		"news on www.bbc.co.uk today":                {"news on today", "url", "bbc", ""},
		"summarize report.pdf":                       {"summarize", "file pdf document pdf", "report", ""},
		"list ~/projects/":                           {"list", "directory", "~/projects", ""},
		"open ./notes/todo":                          {"open", "path", "todo", "./notes"},
		"the last 5 commits in ~/code/webapp":        {"the last 5 commits in", "path", "webapp directory", "~/code"},
		"what files are inside /Users/sam/Downloads": {"what files are inside", "path", "Downloads directory", "/Users/sam"},
		"load /srv/dumps/orders.bak":                 {"load", "file bak", "orders", "/srv/dumps"},
		"pages in example.com's sitemap":             {"pages in sitemap", "url", "example", ""},
		"prices on amazon.com":                       {"prices on", "url", "amazon", ""},
		"news from bbc.co.uk.":                       {"news from", "url", "bbc", ""},
		// A bare host with a path is a web address, not a file path.
		"salary on linkedin.com/jobs/view/3845123456": {"salary on", "url", "linkedin /jobs/view/3845123456", ""},
		"comments on reddit.com/r/python/comments/x":  {"comments on", "url", "reddit /r/python/comments/x", ""},
		"open notes.txt/old/draft":                    {"open", "path", "draft", "notes.txt/old"},
		"a Node.js server reading app.js":             {"a Node.js server reading", "file javascript code js", "app", ""},
		"C:\\Users\\me\\q3.xlsx":                      {"", "file excel spreadsheet xlsx", "q3", "C:\\Users\\me"},
		"rename a.txt to b.txt":                       {"rename to", "file text txt file text txt", "a b", ""},
		"read a.py, b.md and c.json":                  {"read and", "file python code py file markdown md file json json multiple", "a b c", ""},
		"read a.py and b.md":                          {"read and", "file python code py file markdown md multiple", "a b", ""},
		"convert a.md into b.md":                      {"convert into", "file markdown md file markdown md", "a b", ""},
		"U.S. and 2.13.4 and v1.2.in":                 {"U.S. and 2.13.4 and v1.2.in", "", "", ""},
		"version 2.13.4 of jackson e.g. this":         {"version 2.13.4 of jackson e.g. this", "", "", ""},
		"and/or either/or":                            {"and/or either/or", "", "", ""},
		// A slug names one thing by its owner and its name; word pairs
		// and numbers are no slugs.
		"Delete model alice/hot-dog-detector, please": {"Delete model please", "", "alice hot-dog-detector", ""},
		"open acme/web_app and read a.py":             {"open and read", "file python code py", "acme web_app a", ""},
		"TCP/IP read/write 24/7 v2/3 a/b/c-1":         {"TCP/IP read/write 24/7 v2/3", "path", "c-1", "a/b"},
		// A colon after a locator still opens what follows.
		"the basic info on proposal.docx: author, dates": {"the basic info on : author, dates", "file word document docx", "proposal", ""},
		"click #login-btn on the page.":                  {"click on the page.", "selector", "login-btn", ""},
		"comment #4 and issue #12 and # and #/x":         {"comment #4 and issue #12 and # and #/x", "", "", ""},
		"no locators here":                               {"no locators here", "", "", ""},
		"":                                               {"", "", "", ""},
		"/":                                              {"/", "", "", ""},
		"\x00\xff/\xfe.md":                               {"", "file markdown md", "\xfe", "\x00\xff"},
	} {
		rest, kinds, payload, dirs := splitLocators(in)
		if got := (split{rest, kinds, payload, dirs}); got != want {
			t.Errorf("splitLocators(%q) = %q, want %q", in, got, want)
		}
	}
}

// A slug's words name the thing to act on, not what to do: the model
// acme/image-classifier asks for no tool that classifies images.
func TestSearchWeighsASlugsWordsAsTheThingActedOn(t *testing.T) {
	docs := []Document{
		{Name: "get_model", Description: "Get a model by its owner and name.", ParamNames: "model_owner model_name"},
		{Name: "classify_image", Description: "Classify an image into labels.", ParamNames: "image_url"},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
		{Name: "read_note", Description: "Read a note by its title."},
		{Name: "send_email", Description: "Send an email to a recipient."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Show me the model acme/image-classifier", 0)
}

// The directories a path names its folder in say little of the job: the
// "projects" of /home/sam/projects/blog/assets asks for no project tool.
func TestSearchWeighsAPathsDirectoriesLittle(t *testing.T) {
	docs := []Document{
		{Name: "create_project", Description: "Create a new project, with a new folder of its own.", ParamNames: "project_name project_path"},
		{Name: "create_directory", Description: "Create a new directory, or make sure one exists.", ParamNames: "path"},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
		{Name: "read_note", Description: "Read a note by its title."},
		{Name: "send_email", Description: "Send an email to a recipient."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Make a new folder at /home/sam/projects/blog/assets", 1)
	wantFirst(t, ix, docs, "Make a new project at /home/sam/code/blog", 0)
}

// A path after "in" is more likely a directory than a file.
func TestSearchReadsAPathThingsAreInAsADirectory(t *testing.T) {
	docs := []Document{
		{Name: "search_files", Description: "Search for files whose names match a pattern, starting at a path.", ParamNames: "path pattern"},
		{Name: "list_directory", Description: "List the files and subdirectories of a directory.", ParamNames: "path"},
		{Name: "read_file", Description: "Read a file at a path.", ParamNames: "path"},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
		{Name: "read_note", Description: "Read a note by its title."},
		{Name: "send_email", Description: "Send an email to a recipient."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "What is inside /Users/sam/Downloads?", 1)
}

func TestSearchReadsTwoFilesAsMultiple(t *testing.T) {
	docs := []Document{
		{Name: "read_file", Description: "Read the complete contents of a file from the file system."},
		{Name: "read_multiple_files", Description: "Read the contents of multiple files simultaneously."},
		{Name: "move_file", Description: "Move or rename a file."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "show me notes1.txt, notes2.txt and notes3.txt", 1)
	wantFirst(t, ix, docs, "show me notes1.txt and notes2.txt", 1)
	wantFirst(t, ix, docs, "show me notes1.txt", 0)
}

func TestSearchUnderstandsLocators(t *testing.T) {
	docs := []Document{
		{Name: "exchange_rate", Description: "Get the exchange rate between two currencies."},
		{Name: "get_document_text", Description: "Extract all text from a Word document."},
		{Name: "get_transcript", Description: "Extract the transcript from a YouTube video."},
		{Name: "translate_text", Description: "Translate text into another language."},
	}
	ix := NewIndex(docs)
	if hits, _ := ix.Search(Request{Text: "what is in /root/docs/exchange.docx", Limit: 3}); len(hits) == 0 || hits[0].Doc != 1 {
		t.Errorf("a .docx path does not find the Word tool first: %v", hits)
	}
	if hits, _ := ix.Search(Request{Text: "what does https://www.youtube.com/watch?v=x say", Limit: 3}); len(hits) == 0 || hits[0].Doc != 2 {
		t.Errorf("a YouTube URL does not find the YouTube tool first: %v", hits)
	}
}

func TestSplitSearchedFor(t *testing.T) {
	for in, want := range map[string][2]string{
		"search my notes for meeting minutes":                 {"search my notes for ", "meeting minutes"},
		"Search the web for the best hiking trails near Lyon": {"Search the web for ", "the best hiking trails near Lyon"},
		"look through our shared drive for the Q3 budget":     {"look through our shared drive for ", "the Q3 budget"},
		"search for hotels in Rome":                           {"search for hotels in Rome", ""},
		"research the market for EVs":                         {"research the market for EVs", ""},
		"":                                                    {"", ""},
	} {
		if rest, terms := splitSearchedFor(in); rest != want[0] || terms != want[1] {
			t.Errorf("splitSearchedFor(%q) = %q, %q; want %q, %q", in, rest, terms, want[0], want[1])
		}
	}
}

// What a request searches a place for says what to search with, not
// which tool: the place does.
func TestSearchWeighsWhatIsSearchedForLess(t *testing.T) {
	docs := []Document{
		{Name: "find_nearby_places", Description: "Search for the best places near a location: parks, hiking trails, restaurants, shops."},
		{Name: "web_search", Description: "Search the web."},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
		{Name: "read_file", Description: "Read a file."},
		{Name: "send_email", Description: "Send an email to a recipient."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Search the web for the best hiking trails and parks near Lyon", 1)
	wantFirst(t, ix, docs, "Find hiking trails near Lyon", 0)
}

func TestSplitColonContent(t *testing.T) {
	for in, want := range map[string][2]string{
		"Draw a flowchart of our refund process: request, review, approve": {"Draw a flowchart of our refund process", "request, review, approve"},
		"Add to Anna's entry in my memory: she just moved to Denver.":      {"Add to Anna's entry in my memory", "she just moved to Denver."},
		"I've checked it: approve task 3 in request req-12":                {"I've checked it: approve task 3 in request req-12", ""},
		"Note: the file is big":                       {"Note: the file is big", ""},
		"Open https://example.com/a:b in the browser": {"Open https://example.com/a:b in the browser", ""},
		"Meet at 8:30 tomorrow":                       {"Meet at 8:30 tomorrow", ""},
		"":                                            {"", ""},
	} {
		if rest, content := splitColonContent(in); rest != want[0] || content != want[1] {
			t.Errorf("splitColonContent(%q) = %q, %q; want %q, %q", in, rest, content, want[0], want[1])
		}
	}
	// What to note is no request for tools named for its words.
	docs := []Document{
		{Name: "add_observations", Description: "Add new observations to existing entities in the memory."},
		{Name: "move_note", Description: "Move a note to a new location."},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
	}
	wantFirst(t, NewIndex(docs), docs, "Add to Anna's entry in my memory: she moved to a new location in Denver", 0)
}

func TestWithoutNumberRanges(t *testing.T) {
	for in, want := range map[string]string{
		"a random number between 1 and 100":       "a random number between and",
		"Between -2.5 and 7.5, please":            "between and, please",
		"between 5 and 9 pm, between 10 and 20kg": "between 5 and 9 pm, between 10 and 20kg",
		"slide 2 of deck.pptx":                    "slide 2 of deck.pptx",
		"between friends":                         "between friends",
	} {
		if got := withoutNumberRanges(in); got != want {
			t.Errorf("withoutNumberRanges(%q) = %q, want %q", in, got, want)
		}
	}
	// The range is an integer's, not the "1" of a default.
	random := []Document{
		{Name: "random_choices", Description: "Draw random items from a list.", Params: "k How many numbers to draw (default 1)"},
		{Name: "random_int", Description: "A random number between low and high.", Params: "low Lower bound high Upper bound"},
	}
	wantFirst(t, NewIndex(random), random, "a random number between 1 and 100", 1)
}

func TestValueKinds(t *testing.T) {
	for in, want := range map[string]string{
		"What is 17.5% of 48,230 divided by 12?":             "calculate math expression",
		"what's 1847 times 23":                               "calculate math expression",
		"calculate 17 percent of 2340":                       "calculate math expression",
		"3 * (4 + 5)":                                        "calculate math expression",
		"Show me lines 10 to 40 of config.py":                "line range",
		"rows 1-50 of Sheet1, then pages 3 through 5":        "row range page range",
		"what's on slide 4 of 12":                            "",
		"cafes within 500 meters of 40.7580, -73.9855":       "coordinates latitude longitude",
		"what is 51.50,-0.13 plus 2":                         "calculate math expression coordinates latitude longitude",
		"Get Hacker News story 39012345.":                    "id",
		"details of trial NCT04280705, please":               "id",
		"What changed in commit a1b2c3d of my repo?":         "revision",
		"commit 4f2a9c1e8d7b6a5c4f3e2d1c0b9a8f7e6d5c4b3a":    "revision",
		"a deadbeef, the 1234567th, id 550e8400-e29b-41d4":   "",
		"the top 5 stories of 2024, worth $25000":            "",
		"split pages 1-5 and 6-10":                           "page range",
		"a stay on June 10-14, or 10/12":                     "date",
		"born 1995-08-14 10:30, version 2.13.4, a 3x4 table": "date",
		"Apple's stock price on March 15, 2023":              "date",
		"prices from 2024-01-01 to 2024/03/31":               "date range",
		"between the 1st of June and Sept. 3rd":              "date range",
		"on 15/11/2023, in 12 may 2024":                      "date range",
		"the market 5 days ago, a mayor 2 times, 10/12":      "",
		"a random number between 1 and 100":                  "integer",
		"a random number between -2.5 and 7.5":               "decimal float",
		"visitors from 2019 to 2024, between 5 and 9 pm":     "history historical",
		"weekly prices for AMD over the last two years":      "history historical",
		"EPS for the past 8 quarters":                        "history historical",
		"every sale since 2020":                              "history historical",
		"the last 10 commits, the next 3 days":               "",
		"between 10 and 20kg, or between 2 and 5%":           "",
		"Look up the account for jane.doe@acme.com":          "email",
		"Add lee@acme.com to group 45":                       "email",
		"a user@host, an @mention, ann@acme.com.au's list":   "email",
		"": "",
	} {
		if got := valueKinds(in); got != want {
			t.Errorf("valueKinds(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitQuoted(t *testing.T) {
	type split struct{ rest, quotes string }
	for in, want := range map[string]split{
		"rename task 3 to 'Write unit tests'":        {"rename task 3 to", "Write unit tests"},
		`put "Q3 Results" in the title`:              {"put in the title", "Q3 Results"},
		"tag it with ‘vacation’ and “Maui”":          {"tag it with and", "vacation Maui"},
		"add to Anna's entry: she moved to Denver's": {"add to Anna's entry: she moved to Denver's", ""},
		"an 'unclosed quote":                         {"an 'unclosed quote", ""},
		`PUT {"status":"done"} to the API`:           {"PUT {:} to the API", "status done"},
		`send ["a","b"] and name="x"`:                {`send [,] and name=`, "a b x"},
		"":                                           {"", ""},
	} {
		rest, quotes := splitQuoted(in)
		// Spaces where the quotes were are no matter.
		if got := (split{strings.Join(strings.Fields(rest), " "), quotes}); got != want {
			t.Errorf("splitQuoted(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSearchWeighsQuotedTextLess checks that text to type or a title in
// quotes does not find the tool its words name.
func TestSearchWeighsQuotedTextLess(t *testing.T) {
	docs := []Document{
		{Name: "write_file", Description: "Write content to a file.", Domain: "files"},
		{Name: "update_task", Description: "Update a task's title or description.", Domain: "tasks"},
		{Name: "mark_task_done", Description: "Mark a task as done.", Domain: "tasks"},
	}
	wantFirst(t, NewIndex(docs), docs, "rename task 3 to 'Write unit tests for the file parser'", 1)
}

// TestSearchUnderstandsValues checks that a request whose value is a sum
// finds the calculator, though it names none.
func TestSearchTakesLongNumbersForIDs(t *testing.T) {
	docs := []Document{
		{Name: "getStories", Description: "Get multiple stories by type (top, new, best, ask, show, job)", ParamNames: "limit type"},
		{Name: "getStory", Description: "Get a single story by ID", ParamNames: "id"},
		{Name: "getUser", Description: "Get a user by ID", ParamNames: "id"},
		{Name: "search", Description: "Search stories and comments", ParamNames: "query"},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "show me Hacker News story 39012345", 1)
	wantFirst(t, ix, docs, "get the 5 top Hacker News stories", 0)
}

// TestSearchTakesDatesForDates checks that a request holding a date finds
// the tool that takes one, and a request holding two the tool that takes
// a range.
func TestSearchTakesDatesForDates(t *testing.T) {
	docs := []Document{
		{Name: "get_current_stock_price", Description: "Get the current stock price based on stock symbol.", ParamNames: "symbol"},
		{Name: "get_stock_price_by_date", Description: "Get the stock price for a given stock symbol on a specific date.", ParamNames: "symbol date"},
		{Name: "get_stock_price_date_range", Description: "Get the stock prices for a given date range for a given stock symbol.", ParamNames: "symbol start_date end_date"},
		{Name: "get_historical_stock_prices", Description: "Get historical stock prices for a given stock symbol.", ParamNames: "symbol period interval"},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "What was Amazon's stock price on 2023-11-15?", 1)
	wantFirst(t, ix, docs, "Tesla stock prices between March 1 and March 15, 2024", 2)
	wantFirst(t, ix, docs, "What is Apple's stock price right now?", 0)
}

func TestSearchUnderstandsValues(t *testing.T) {
	docs := []Document{
		{Name: "get_current_time", Description: "Get the current time in a time zone.", Domain: "time"},
		{Name: "convert_time", Description: "Convert a time between time zones.", Domain: "time"},
		{Name: "calculate", Description: "Calculates/evaluates the given expression.", Params: "expression The expression.", ParamNames: "expression", Domain: "calculator"},
		{Name: "get_dividends", Description: "Get the dividends a stock paid.", Domain: "finance"},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "What's 1847 times 23 divided by 7?", 2)

	docs = []Document{
		{Name: "random_int", Description: "Generate a random integer within a range.", ParamNames: "low high"},
		{Name: "random_float", Description: "Generate a random floating point number within a range.", ParamNames: "low high"},
		{Name: "random_choices", Description: "Choose random items from a list of numbers or words.", ParamNames: "population k"},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
	}
	ix = NewIndex(docs)
	wantFirst(t, ix, docs, "Give me a random number between 1 and 100", 0)
	wantFirst(t, ix, docs, "Give me a random number between 2.5 and 7.5", 1)
}

// TestSearchWeighsLocatorNamesLess checks that the name of the file or
// site a request acts on counts less than the words of what it asks.
func TestSearchWeighsLocatorNamesLess(t *testing.T) {
	docs := []Document{
		{Name: "get_config", Description: "Get the server configuration as JSON, with its limits on the lines a file read returns.", Domain: "commander"},
		{Name: "read_file", Description: "Read the contents of a file, from a given line.", Domain: "commander"},
		{Name: "navigate", Description: "Navigate to a URL.", Domain: "playwright", DomainDescription: "Browser automation."},
		{Name: "click", Description: "Click an element on the page.", Domain: "playwright", DomainDescription: "Browser automation."},
		{Name: "sitemap_stats", Description: "Get statistics about the sitemap of a website, like https://example.com.", Domain: "sitemap"},
		{Name: "sitemap_tree", Description: "Get the sitemap tree of a website, like https://example.com.", Domain: "sitemap"},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "show me lines 10 to 40 of /home/me/app/config.py", 1)
	wantFirst(t, ix, docs, "open https://example.com in the browser", 2)
}

// TestSearchJoinsWordsToolNamesRunTogether checks that words a request
// writes apart find the tool whose name runs them together.
func TestSearchJoinsWordsToolNamesRunTogether(t *testing.T) {
	needsData(t)
	docs := []Document{
		{Name: "get-weibo-trending", Description: "Trending topics on Weibo.", Domain: "trends"},
		{Name: "get-toutiao-trending", Description: "Trending news on Toutiao.", Domain: "trends"},
		{Name: "get-thepaper-trending", Description: "澎湃新闻热榜", Domain: "trends"},
		{Name: "get-36kr-trending", Description: "36氪热榜", Domain: "trends"},
	}
	ix := NewIndex(docs)
	if got := ix.joinedWords("top stories on The Paper and 36Kr"); got != "thepap 36kr" {
		t.Errorf("joinedWords = %q, want %q", got, "thepap 36kr")
	}
	wantFirst(t, ix, docs, "What's trending on The Paper news right now?", 2)
	// A name of three words runs together with two initials.
	news := []Document{
		{Name: "get-nytimes-news", Description: "获取纽约时报新闻", Domain: "trends"},
		{Name: "get_current_time", Description: "Get the current time in a timezone.", Domain: "time"},
	}
	nix := NewIndex(news)
	if got := nix.joinedWords("the New York Times, at New York time"); got != "nytim" {
		t.Errorf("joinedWords = %q, want %q", got, "nytim")
	}
	wantFirst(t, nix, news, "Show me the New York Times world news", 0)
}

// TestSearchTakesBrandWordsWhole checks that "GitHub" in a request is
// the brand, not the words "git" and "hub".
func TestSearchTakesBrandWordsWhole(t *testing.T) {
	docs := []Document{
		{Name: "git_log", Description: "Shows the commit logs.", Domain: "git"},
		{Name: "git_status", Description: "Shows the working tree status.", Domain: "git"},
		{Name: "repo_stats", Description: "Get the GitHub stars, forks and open issues of a package's repository.", Domain: "npm"},
		{Name: "package_versions", Description: "List the versions of a package.", Domain: "npm"},
	}
	wantFirst(t, NewIndex(docs), docs, "How popular is axios on GitHub?", 2)
}

// TestSearchWeighsParameterNames checks that a tool's parameter names
// count beside the text of its parameters: of two tools whose parameter
// text both mention the city, the one that takes a city comes first.
func TestSearchWeighsParameterNames(t *testing.T) {
	docs := []Document{
		{Name: "forecast_by_coordinates", Description: "Get the weather forecast.",
			Params: "latitude longitude label Name of the city.", ParamNames: "latitude longitude label"},
		{Name: "forecast_by_place", Description: "Get the weather forecast.",
			Params: "city Name of the town or village to forecast. units Optional units: metric or imperial.", ParamNames: "city units"},
		{Name: "get_time", Description: "Get the time in a time zone.", Params: "zone Time zone.", ParamNames: "zone"},
	}
	wantFirst(t, NewIndex(docs), docs, "weather forecast for the city of Lisbon", 1)
}

// wantFirst fails t unless docs[want] is the first hit for query.
func wantFirst(t *testing.T, ix *Index, docs []Document, query string, want int) {
	t.Helper()
	if hits, _ := ix.Search(Request{Text: query, Limit: 3}); len(hits) == 0 || hits[0].Doc != want {
		t.Errorf("%q: first hit %v, want %s", query, hits, docs[want].Name)
	}
}

// movedBy is the names of the hits for text that the named signal moves,
// in rank order, as their explanations tell it.
func movedBy(ix *Index, docs []Document, text, signal string) []string {
	hits, _ := ix.Search(Request{Text: text, Limit: len(docs), Explain: true})
	var moved []string
	for _, h := range hits {
		if slices.ContainsFunc(h.Explanation.Signals, func(s SignalScore) bool { return s.Signal == signal }) {
			moved = append(moved, docs[h.Doc].Name)
		}
	}
	return moved
}

func TestSearchCountsAWordOnceHoweverManyWaysItMatches(t *testing.T) {
	docs := []Document{
		{Name: "record_finder", Description: "A searcher of records: search, find, look up, locate or seek any one."},
		{Name: "album_art", Description: "Album art: search the covers."},
		{Name: "read_note", Description: "Read a note by its title."},
		{Name: "write_file", Description: "Write content to a file."},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
		{Name: "list_directory", Description: "List the files in a directory."},
	}
	ix := NewIndex(docs)
	// "search" also matches "searcher" and its synonyms "find", "look
	// up", "locate" and "seek", all in record_finder's text; summed in
	// full they outweighed "covers", the word that says what to search.
	wantFirst(t, ix, docs, "search the covers", 1)
	// Each further way a word matches still counts for something.
	hits, _ := ix.Search(Request{Text: "search", Limit: 6})
	if len(hits) != 2 || hits[0].Doc != 0 {
		t.Errorf("search: want record_finder, which says it five ways, before album_art; got %v", hits)
	}
}

func TestSynonymsMatchDiscounted(t *testing.T) {
	docs := []Document{
		{Name: "write_file", Description: "Write content to a file."},
		{Name: "add_picture", Description: "Add a picture to a document."},
		{Name: "get_card_image", Description: "Get the image of a card."},
		{Name: "save_session", Description: "Save the browser session."},
	}
	ix := NewIndex(docs)
	hits, _ := ix.Search(Request{Text: "save the text to a file", Limit: 4})
	if len(hits) == 0 || hits[0].Doc != 0 {
		t.Errorf("save ... file does not find write_file first: %v", hits)
	}
	hits, _ = ix.Search(Request{Text: "show the card picture", Limit: 4})
	if len(hits) == 0 || hits[0].Doc != 2 {
		t.Errorf("card picture does not find get_card_image first: %v", hits)
	}
	// "Today's" date is the current one.
	dates := []Document{
		{Name: "get_earning_dates", Description: "Get the earnings dates of a stock."},
		{Name: "get-current-date", Description: "Get the current date."},
	}
	wantFirst(t, NewIndex(dates), dates, "what's today's date", 1)
	// To grab a page is to fetch it.
	pages := []Document{
		{Name: "show_page", Description: "Show a page."},
		{Name: "fetch_page", Description: "Fetch a page from the web, a file or a cache."},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
	}
	wantFirst(t, NewIndex(pages), pages, "grab the page", 1)
	// To forget is to delete.
	graph := []Document{
		{Name: "open_nodes", Description: "Open nodes of the knowledge graph by name."},
		{Name: "delete_entities", Description: "Delete entities from the knowledge graph."},
		{Name: "delete_relations", Description: "Delete relations from the knowledge graph."},
		{Name: "select_option", Description: "Select an option of an element on the page."},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
	}
	wantFirst(t, NewIndex(graph[:2]), graph[:2], "forget Alice", 1)
	// How many is a count, and a count a quantity.
	stock := []Document{
		{Name: "get_inventory", Description: "Get the quantity of an item in stock."},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
	}
	wantFirst(t, NewIndex(stock), stock, "how many are left", 0)
	// A card's art is its image.
	cards := []Document{
		{Name: "get_card_by_id", Description: "Get the details of a card by its id."},
		{Name: "get_card_image", Description: "Get the image of a card by its id."},
	}
	wantFirst(t, NewIndex(cards), cards, "Show me the card art for Blue-Eyes White Dragon", 1)
	// To rename a thing is to update it, or to move a file.
	stems := newStemCache()
	for _, w := range []string{"update", "move"} {
		if !slices.Contains(synonymsByStem[stems.stem("rename")], stems.stem(w)) {
			t.Errorf("rename is no synonym of %s: %v", w, synonymsByStem[stems.stem("rename")])
		}
	}
	// To swap one word for another is to replace it.
	edits := []Document{
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
		{Name: "search_and_replace", Description: "Search for text in a document and replace it."},
	}
	wantFirst(t, NewIndex(edits), edits, "swap every Acme Corp for Acme Inc", 1)
	// To combine files is to merge them.
	if !slices.Contains(synonymsByStem[stems.stem("combine")], stems.stem("merge")) {
		t.Errorf("combine is no synonym of merge: %v", synonymsByStem[stems.stem("combine")])
	}
	pdfs := []Document{
		{Name: "pdf_splitter", Description: "Split a PDF file into one PDF file for each range of pages."},
		{Name: "pdf_merger", Description: "Merge PDF files."},
	}
	wantFirst(t, NewIndex(pdfs), pdfs, "Combine chapter1.pdf and chapter2.pdf", 1)
	// The word itself outranks its synonym.
	hits, _ = ix.Search(Request{Text: "picture", Limit: 4})
	if len(hits) != 2 || hits[0].Doc != 1 || hits[1].Doc != 2 {
		t.Errorf("picture: want add_picture then get_card_image, got %v", hits)
	}
	for w, syns := range synonymsByStem {
		if len(syns) == 0 || strings.Contains(w, " ") {
			t.Errorf("synonym entry %q: %q", w, syns)
		}
	}
}

func TestEnglishGloss(t *testing.T) {
	needsData(t)
	for in, want := range map[string][]string{
		"通过卡牌ID获取游戏王卡牌的图片": {"playing card", "picture", "Yu-Gi-Oh!"},
		"根据人数直接推荐适合的菜品组合":  {"recommend", "number of people", "dish"},
		"北京天氣": {"Beijing", "weather"}, // traditional characters too
	} {
		got := englishGloss(in)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("englishGloss(%q) = %q, want it to hold %q", in, got, w)
			}
		}
	}
	for _, in := range []string{"", "plain ASCII", "café crème", "\xff\xfe", "카드 이미지"} {
		if got := englishGloss(in); got != "" {
			t.Errorf("englishGloss(%q) = %q, want nothing", in, got)
		}
	}
	if got := englishGloss(strings.Repeat("𪚥", 100)); strings.Contains(got, "\n") || strings.Contains(got, "\t") {
		t.Errorf("gloss of unknown characters leaks glossary lines: %q", got)
	}
}

func TestChineseToolsAreFoundInEnglishAndBack(t *testing.T) {
	needsData(t)
	docs := []Document{
		{Name: "search_cards", Description: "通过关键字搜索游戏王卡牌，可以搜索卡牌名称、效果文本等。", Domain: "ygocdb"},
		{Name: "get_card_image", Description: "通过卡牌ID获取游戏王卡牌的图片", Domain: "ygocdb"},
		{Name: "whatToEat", Description: "不知道吃什么？根据人数直接推荐适合的菜品组合", Domain: "howtocook"},
		{Name: "get_weather", Description: "Get the weather forecast for a city.", Domain: "weather"},
		{Name: "add_picture", Description: "Add a picture to a Word document.", Domain: "word"},
		{Name: "movie_picks", Description: "Movies for a group of people.", Domain: "movies"},
	}
	ix := NewIndex(docs)
	for q, want := range map[string]int{
		"recommend dishes for four people": 2, // not the movies: only the gloss says dishes
		"search Yu-Gi-Oh cards by keyword": 0,
		"get Yu-Gi-Oh card picture":        1,
		"北京的天气":                            3,
	} {
		if hits, _ := ix.Search(Request{Text: q, Limit: 3}); len(hits) == 0 || hits[0].Doc != want {
			t.Errorf("%q: want %s first, got %v", q, docs[want].Name, hits)
		}
	}
}

func TestSplitSteps(t *testing.T) {
	for in, want := range map[string][]string{
		"Read the sales sheet, plot it as a bar chart and then save the chart":        {"Read the sales sheet", "plot it as a bar chart", "save the chart"},
		"find flights. Also book a hotel!":                                            {"find flights", "book a hotel!"},
		"get the weather in Paris":                                                    nil,
		"see https://a.b/c?d=e.f, then summarize it":                                  {"see https://a.b/c?d=e.f", "summarize it"},
		"read two, x, plot four":                                                      {"read two", "plot four"},
		"get a, make c, send e, find g, run i, save k":                                {"get a", "make c", "send e", "find g run i save k"},
		"Map my route: Forbidden City, then Temple of Heaven, then the Summer Palace": nil,
		"Plot sales by month, in blue, then save the chart":                           {"Plot sales by month in blue", "save the chart"},
		"Fetch the news, cross-reference it with stocks, then write a report":         {"Fetch the news", "cross-reference it with stocks", "write a report"},
		// A separator inside quoted text cuts no step.
		"Reply 'Thanks, looks good' to Lisa's post in the Design channel": nil,
		"Rename it to \"Q3, final\", then share it with Ana":              {"Rename it to \"Q3, final\"", "share it with Ana"},
		// The words of an identifier name a thing, not an action: a list
		// of them is no step.
		"Get the full SQL for usp_GetOrders, usp_UpdateStock and usp_CloseInvoice.": nil,
		"Get the full SQL for usp_GetOrders, then update the stock table":           {"Get the full SQL for usp_GetOrders", "update the stock table"},
		// The verb of an idiom names no step.
		"Delete spam tickets 3301, 3302 and 3307 in one go.": nil,
		// A question keeps its mark.
		"Any notes on document 774? Show me all of them.": {"Any notes on document 774?", "Show me all of them."},
		"": nil,
	} {
		if got := splitSteps(in); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("splitSteps(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMultiStepRequestsFindEachStepsTool(t *testing.T) {
	docs := []Document{
		{Name: "excel_read_sheet", Description: "Read data from an Excel worksheet."},
		{Name: "generate_bar_chart", Description: "Generate a bar chart from data."},
		{Name: "write_file", Description: "Write content to a file."},
		{Name: "generate_line_chart", Description: "Generate a line chart from data."},
		{Name: "generate_pie_chart", Description: "Generate a pie chart from data."},
		{Name: "generate_area_chart", Description: "Generate an area chart from data."},
		{Name: "excel_write_sheet", Description: "Write data to an Excel worksheet."},
		{Name: "excel_format_sheet", Description: "Format the cells of an Excel worksheet, chart styles."},
	}
	ix := NewIndex(docs)
	q := "Read the sales data from /data/sales.xlsx, plot it as a bar chart by month, then save the chart to a file"
	hits, total := ix.Search(Request{Text: q, Limit: 3})
	got := map[string]bool{}
	for _, h := range hits {
		got[docs[h.Doc].Name] = true
	}
	for _, want := range []string{"excel_read_sheet", "generate_bar_chart", "write_file"} {
		if !got[want] {
			t.Errorf("top 3 of a three-step request lack %s: %v", want, hits)
		}
	}
	whole, wholeTotal := ix.rank(Request{Text: q, Limit: 1}, true)
	if total != wholeTotal || hits[0].Doc != whole[0].Doc {
		t.Errorf("steps changed the total (%d, want %d) or the best hit (%d, want %d)", total, wholeTotal, hits[0].Doc, whole[0].Doc)
	}
	// Pages of the merged ranking are consecutive slices of one order.
	all, _ := ix.Search(Request{Text: q, Limit: len(docs)})
	var paged []Hit
	for off := 0; off < len(docs); off += 3 {
		page, _ := ix.Search(Request{Text: q, Offset: off, Limit: 3})
		paged = append(paged, page...)
	}
	seen := map[int]bool{}
	for i, h := range paged {
		if seen[h.Doc] || i >= len(all) || all[i].Doc != h.Doc {
			t.Fatalf("paging the merged ranking: pages %v, one page %v", paged, all)
		}
		seen[h.Doc] = true
	}
	if len(paged) != total {
		t.Errorf("%d hits over all pages, total %d", len(paged), total)
	}
}

func TestIdioms(t *testing.T) {
	for in, want := range map[string]string{
		"look up the word, then sum up the article":  "lookup the word then sum up the article",
		"how much is it and how many are left":       "price is it and count stats are left",
		"Tell me about the Dialog component":         "details info the dialog component",
		"Look through my graph for Kubernetes":       "search my graph for kubernetes",
		"What changed between a.txt and b.txt?":      "what differences between a txt and b txt",
		"Send a GET request, then a POST request":    "send a http get request then a post request",
		"Pick 3 different winners from Ann and Ben":  "pick 3 unique winners from ann and ben",
		"What's different between v1 and v2?":        "what s different between v1 and v2",
		"are they different":                         "are they different",
		"Pull up story 42 right now":                 "show open get story 42 current",
		"Set up a new hook, then set up the rest":    "create new setup hook then configure setup the rest",
		"Sign me out, then log in as Ann":            "logout then login as ann",
		"Tell me more about the 'hero' template":     "details info the hero template",
		"Start a brand-new blank deck":               "create new start blank deck",
		"Is there a date picker? Anything for maps?": "search date picker anything for maps",
		"Dig into it, take off the label":            "research it take off the label",
		"a up look":                                  "a up look",
		"":                                           "",
	} {
		if got := saidPlainly(in); got != want {
			t.Errorf("saidPlainly(%q) = %q, want %q", in, got, want)
		}
	}
	docs := []Document{
		{Name: "list_notes", Description: "List the notes."},
		{Name: "delete_note", Description: "Delete a note."},
		{Name: "view_note", Description: "Open a note to read it."},
	}
	if hits, _ := NewIndex(docs).Search(Request{Text: "pull up my grocery note", Limit: 2}); len(hits) == 0 || hits[0].Doc != 2 {
		t.Errorf("pull up a note: %v", hits)
	}
	components := []Document{
		{Name: "list_shadcn_components", Description: "Get a list of all available shadcn/ui components."},
		{Name: "get_component_details", Description: "Get detailed information about a specific shadcn/ui component.", Params: "componentName Name of the component"},
	}
	if hits, _ := NewIndex(components).Search(Request{Text: "Tell me about the shadcn/ui Dialog component", Limit: 2}); len(hits) == 0 || hits[0].Doc != 1 {
		t.Errorf("tell me about a component: %v", hits)
	}
	// Asking whether there is one is searching for it.
	components = append(components, Document{Name: "search_components", Description: "Search for shadcn/ui components by keyword.", Params: "query"})
	wantFirst(t, NewIndex(components), components, "Are there any shadcn/ui components for picking dates?", 2)
	// Different winners are unique ones, not a comparison.
	picks := []Document{
		{Name: "generate_bar_chart", Description: "Generate a bar chart to compare values across different categories."},
		{Name: "random_sample", Description: "Choose k unique items from population without replacement."},
	}
	wantFirst(t, NewIndex(picks), picks, "Pick 3 different winners from Alice, Bob, Carol, Dan and Eve", 1)
	wantFirst(t, NewIndex(picks), picks, "How is the bar chart different from a pie?", 0)
	// The idiom's own words are no request: "look" in "look up" asks for
	// a lookup, not for a tool about looks.
	looks := []Document{
		{Name: "get_look", Description: "Get the look of a theme."},
		{Name: "dns_lookup", Description: "Lookup the DNS records of a domain."},
	}
	wantFirst(t, NewIndex(looks), looks, "look up example.org", 1)
}

func TestPlaceWords(t *testing.T) {
	for in, want := range map[string]string{
		"add a rectangle on slide 2":               "slide",
		"make the first words of paragraph 2 bold": "paragraph",
		"put the card in the Done column":          "done",
		"search in my notes for the budget":        "note",
		"bold the words in 2 of the slides":        "slide",
		"add it to slide 2":                        "",
		"save the chart to a file":                 "",
		"turn my outline into a mind map":          "",
		"get the text from the PDF":                "",
		"copy slide 3 of deck a onto slide 4 of b": "b deck",
		"read my notes, then search in my notes":   "",
		"the weather in":                           "",
		"in":                                       "",
		"":                                         "",
	} {
		var got []string
		for s := range placeWords(in, newStemCache()) {
			got = append(got, s)
		}
		slices.Sort(got)
		if strings.Join(got, " ") != want {
			t.Errorf("placeWords(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSearchWeighsPlaceWordsLessInNames(t *testing.T) {
	docs := []Document{
		{Name: "add_paragraph", Description: "Add a paragraph to a document.", ParamNames: "filename text style"},
		{Name: "format_text", Description: "Format a range of words in a paragraph.", ParamNames: "filename paragraph_index start_pos end_pos bold italic color"},
		{Name: "delete_paragraph", Description: "Delete a paragraph from a document.", ParamNames: "filename paragraph_index"},
		{Name: "add_heading", Description: "Add a heading to a Word document.", ParamNames: "filename text level"},
		{Name: "add_picture", Description: "Add an image to a Word document.", ParamNames: "filename image_path width"},
		{Name: "get_weather", Description: "Get the weather forecast for a city.", ParamNames: "city days"},
		{Name: "read_file", Description: "Read the complete contents of a file.", ParamNames: "path"},
		{Name: "list_directory", Description: "List the files in a directory.", ParamNames: "path"},
		{Name: "get_stock_price", Description: "Get the current price of a stock.", ParamNames: "symbol"},
	}
	ix := NewIndex(docs)
	// The paragraph is where to format: add_paragraph's name half spells
	// the request only through its place.
	wantFirst(t, ix, docs, "make the first five words of paragraph 2 bold", 1)
	wantFirst(t, ix, docs, "add a paragraph", 0)
}

func TestSearchPutsListingToolsBelowForANamedFile(t *testing.T) {
	docs := []Document{
		{Name: "list_available_documents", Description: "List all .docx files in the specified directory.", ParamNames: "directory"},
		{Name: "get_document_text", Description: "Extract all text from a Word document.", ParamNames: "filename"},
		{Name: "copy_document", Description: "Create a copy of a Word document.", ParamNames: "source_filename destination_filename"},
		{Name: "add_heading", Description: "Add a heading to a Word document.", ParamNames: "filename text level"},
		{Name: "add_paragraph", Description: "Add a paragraph of text to a Word document.", ParamNames: "filename text style"},
		{Name: "read_file", Description: "Read the complete contents of a file.", ParamNames: "path"},
		{Name: "translate_text", Description: "Translate text into another language.", ParamNames: "text target"},
		{Name: "get_document_outline", Description: "Get the structure of a Word document.", ParamNames: "filename"},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "show me the heading structure of thesis.docx", 7)
	wantFirst(t, ix, docs, "which docx files are in ~/contracts/", 0)
}

func TestSynonymsSkipOnlyTermsOfAFifthOfALargeCatalog(t *testing.T) {
	catalog := func(n, withSearch int) *Index {
		docs := make([]Document, n)
		for i := range docs {
			docs[i] = Document{Name: fmt.Sprintf("tool_%d", i), Description: fmt.Sprintf("Does thing %d.", i)}
			if i < withSearch {
				docs[i].Description = fmt.Sprintf("Search things %d.", i)
			}
		}
		return NewIndex(docs)
	}
	for _, c := range []struct {
		n, withSearch int
		common        bool
	}{
		{400, 70, false}, // over an eighth, under a fifth
		{300, 70, true},
		{100, 60, false}, // too small a catalog to tell
	} {
		ix := catalog(c.n, c.withSearch)
		if got := ix.commonForSynonym(ix.vocab["search"]); got != c.common {
			t.Errorf("%d of %d documents: commonForSynonym = %v, want %v", c.withSearch, c.n, got, c.common)
		}
	}
}

func TestSearchPutsListingToolsBelowForANumberedItem(t *testing.T) {
	docs := []Document{
		{Name: "list_requests", Description: "List all requests with their tasks and the progress of each task."},
		{Name: "open_task_details", Description: "Get the details of a task.", ParamNames: "taskId"},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
		{Name: "read_note", Description: "Read a note by its title."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Show the progress of task 3", 1)
	wantFirst(t, ix, docs, "Show the progress of each task", 0)
}

// A listing tool that takes the numbered item (list_chapters, of a
// bookId) lists what is in it: a request for the chapters of book 57
// does not push it below, as it does list_books. Tools of
// access-calibre, as published.
func TestSearchKeepsAListingToolThatTakesTheNumberedItem(t *testing.T) {
	docs := []Document{
		{Name: "list_books", Description: "List books in a specific library", ParamNames: "libraryId limit offset"},
		{Name: "list_chapters", Description: "List all chapters of a specific book in their linear reading order. This provides the 'path' for each chapter which is required to read its content.", ParamNames: "bookId libraryId"},
		{Name: "get_chapter_content_markdown", Description: "Get the content of a specific chapter converted to Markdown. This is the DEFAULT and RECOMMENDED tool for reading book content.", ParamNames: "bookId length libraryId offset path"},
		{Name: "search_in_book", Description: "Search for specific literal text or phrases across all chapters of a book.", ParamNames: "bookId libraryId query"},
		{Name: "get_book_cover", Description: "Get the cover image of a book as a PNG", ParamNames: "bookId libraryId"},
	}
	ix := NewIndex(docs)
	if moved := movedBy(ix, docs, "Show the table of contents for book 57 in my ebook library.", "listing"); !slices.Equal(moved, []string{"list_books"}) {
		t.Errorf("listing moves %q, want list_books only: list_chapters takes the book", moved)
	}
}

func TestFramingVerbs(t *testing.T) {
	stems := newStemCache()
	for in, want := range map[string]string{
		"Show me what's in my Downloads folder": "show",
		"Can you display the chart":             "display",
		"List my notes":                         "",
		"What does git show do":                 "",
		"":                                      "",
	} {
		if got := framingVerb(in, stems); got != want {
			t.Errorf("framingVerb(%q) = %q, want %q", in, got, want)
		}
	}
	// "Show me" asks to see a folder, not for a tool named for showing.
	docs := []Document{
		{Name: "show_config", Description: "Show the configuration of the server."},
		{Name: "list_directory", Description: "List the files in a folder."},
	}
	wantFirst(t, NewIndex(docs), docs, "Show me what's in my Downloads folder", 1)
}

// A contact clause's verb says which thing, not what to do: "the audio I
// just loaded" asks nothing of a tool that loads.
func TestClauseVerbs(t *testing.T) {
	for in, want := range map[string][]string{
		"How many seconds long is the audio I just loaded?":             {"load"},
		"Click the Sign In button on the page I have open":              {"open"},
		"Show the response I'm waiting on, then the page you've opened": {"wait", "open"},
		"Task 2 looks good; I approve it as complete":                   nil,
		"What should I build on Jinx?":                                  nil,
		"Can you delete the file I named draft.txt?":                    {"name"},
		"I want to load a file":                                         nil,
		"Could you list every VPN community?":                           nil,
		"Would you delete the draft they sent?":                         {"sent"},
		"Does SQL Server think we're missing any indexes?":              nil,
	} {
		got := slices.Sorted(maps.Keys(clauseVerbs(in, newStemCache())))
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("clauseVerbs(%q) = %q, want %q", in, got, want)
		}
	}
	docs := []Document{
		{Name: "open_presentation", Description: "Open an existing PowerPoint presentation."},
		{Name: "get_presentation_info", Description: "Get information about a presentation."},
	}
	wantFirst(t, NewIndex(docs), docs, "Show me the details of the presentation I currently have open", 1)
	// What a request asks whether someone thinks is the request's own.
	docs = []Document{
		{Name: "list_indexes", Description: "List the indexes in a SQL Server database schema.", ParamNames: "schema"},
		{Name: "find_missing_indexes", Description: "Find the indexes SQL Server reports as missing.", ParamNames: "schema"},
	}
	wantFirst(t, NewIndex(docs), docs, "Does SQL Server think we're missing any indexes in the dbo schema?", 1)
}

// "Open" that says a state matches tools named for opening much less:
// "which presentations do I have open" lists them.
func TestOpenState(t *testing.T) {
	for in, want := range map[string]bool{
		"Which presentations do you currently have open?":    true,
		"Click the Sign In button on the open page.":         true,
		"Save my open deck to /tmp/q3.pptx":                  true,
		"Open the deck at /tmp/q3.pptx":                      false,
		"Please open the presentation, then read slide 2":    false,
		"Is the museum open on Sundays?":                     false,
		"Open the file and save it, then open the other one": false,
	} {
		if got := openState(in); got != want {
			t.Errorf("openState(%q) = %v, want %v", in, got, want)
		}
	}
	docs := []Document{
		{Name: "open_presentation", Description: "Open an existing PowerPoint presentation from a file."},
		{Name: "list_presentations", Description: "List all loaded presentations."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Which presentations do you currently have open?", 1)
	wantFirst(t, ix, docs, "What presentations do I have open at the moment?", 1)
	wantFirst(t, ix, docs, "Open the presentation at /decks/q3.pptx", 0)
}

// A converter named the other way round from the request does its
// opposite.

func TestBrandTerms(t *testing.T) {
	stems := newStemCache()
	got := brandTerms("Get a YouTube transcript, an iPhone price, GitHub issues via HTMLParser; not getHTTPResponse, Youtube, NASA, v2Api or 视频YouTube", stems)
	want := []string{"youtub", "iphon", "github", "htmlparser", "youtub"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("brandTerms = %q, want %q", got, want)
	}
}

// A request that renames, moves, copies, deletes, uploads or downloads a
// file handles it whole: on LiveMCPBench's catalog, renaming a .docx file
// finds the filesystem's move_file first, not a tool for Word documents,
// while reading one still finds the Word tool.
func TestSearchHandlesAFileWhole(t *testing.T) {
	docs, names := livemcpbenchDocs(t)
	ix := NewIndex(docs)
	for request, want := range map[string]string{
		"Rename report_final.docx to report_2024.docx": "filesystem.move_file",
		"Show me the text of report_final.docx":        "word-document-server.get_document_text",
		// Whether a file exists, how big it is, when it was modified: the
		// file as a file.
		"When was /home/sam/report.docx last modified, and how big is it?": "filesystem.get_file_info",
	} {
		if hits, _ := ix.Search(Request{Text: request, Limit: 3}); len(hits) == 0 || names[hits[0].Doc] != want {
			var got []string
			for _, h := range hits {
				got = append(got, names[h.Doc])
			}
			t.Errorf("%q ranks %v first, want %s", request, got, want)
		}
	}
	for text, want := range map[string]bool{
		"Rename report_final.docx to report_2024.docx":  true,
		"Does /tmp/deck.pptx exist, and how big is it?": true,
		"How large is budget.xlsx?":                     true,
		"When was notes.txt last modified?":             true,
		"Show me the text of report_final.docx":         false,
		"Add a slide to deck.pptx":                      false,
	} {
		if got := handlesWhole(text); got != want {
			t.Errorf("handlesWhole(%q) = %v, want %v", text, got, want)
		}
	}
	if others, formats := splitFormats("file word document docx"); others != "file" || formats != "word document docx" {
		t.Errorf("splitFormats = %q, %q", others, formats)
	}
	if others, _ := splitFormats("url s3"); others != "url s3" {
		t.Errorf("splitFormats took a URL's scheme for a format: %q", others)
	}
}

// The name of a file, an identifier or a directory is spelled as meant:
// none of its words matches a word one typo away.
func TestNamesMatchNoTypo(t *testing.T) {
	ix := NewIndex([]Document{
		{Name: "download_file", Description: "Read the content of a file."},
		{Name: "write_object", Description: "Writes a new object to the bucket."},
	})
	r := ix.parse("Write this text into notes/readme.txt in the docs bucket.", nil)
	for _, qt := range r.terms {
		for _, m := range qt.matches {
			if qt.part == partLocatorName && m.how == matchTypo {
				t.Errorf("%q of a file's name matches %q one typo away", qt.word, ix.terms[m.id])
			}
		}
	}
}

// An email address asks for a tool that takes one.
func TestAnEmailAddressFindsTheToolThatTakesOne(t *testing.T) {
	docs := []Document{
		{Name: "add_group_members_by_username", Description: "Add group members using their usernames.", Params: "usernames Usernames to add", ParamNames: "usernames"},
		{Name: "add_group_members_by_email", Description: "Add group members using their addresses.", Params: "emails Addresses of existing accounts", ParamNames: "emails"},
	}
	wantFirst(t, NewIndex(docs), docs, "Add lee@acme.com and omar@acme.com to forum group 45.", 1)
}

// Signing out asks for the tool that logs out, not for those about the
// account it names.
func TestSigningOutFindsLogout(t *testing.T) {
	docs := []Document{
		{Name: "select-account", Description: "Select a Microsoft account to use.", Params: "accountId The account", ParamNames: "accountId"},
		{Name: "remove-account", Description: "Remove a Microsoft account from the cache.", Params: "accountId The account", ParamNames: "accountId"},
		{Name: "login", Description: "Authenticate with Microsoft using the device code flow."},
		{Name: "logout", Description: "Log out from Microsoft and clear the token cache."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Sign me out of my Microsoft account, please.", 3)
	wantFirst(t, ix, docs, "Sign me in to my Microsoft 365 account, please.", 2)
}
