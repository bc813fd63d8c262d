package search

import (
	"slices"
	"strings"
	"testing"
)

func TestNumberedItems(t *testing.T) {
	for text, want := range map[string][]string{
		"Show me Hacker News story 38812345":             {"story"},
		"Pull up comment number 38921455":                {"comment"},
		"Get the comment with ID 38912345":               {"comment"},
		"Remove slide 4 from pitch.pptx":                 {"slide"},
		"approve task #3 and task 4":                     {"task", "task"},
		"the top 10 stories on Hacker News":              nil,
		"the last 5 commits in ~/code/webapp":            nil,
		"page 2 of the results":                          nil,
		"flights on 12 May":                              nil,
		"Look up Met Museum object 436535, please":       {"object"},
		"no numbers here":                                nil,
		"Open my note titled 'Meeting notes 2024-05-02'": nil,
		"the minutes 02-05-2024 of board meeting 7":      {"meeting"},
		"Remove slide 4-5 from pitch.pptx":               {"slide"},
		"Set a reminder 30 minutes before the task":      nil,
		"running 10 min late, tell room 5":               {"room"},
		"Chart 2024 monthly revenue as bars":             nil,
		"":                                               nil,
	} {
		if got := numberedItems(text); !slices.Equal(got, want) {
			t.Errorf("numberedItems(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestSearchPrefersTheToolForOneNumberedItem(t *testing.T) {
	docs := []Document{
		{Name: "getStories", Description: "Get multiple stories by type (top, new, best, ask, show, job)", ParamNames: "type limit"},
		{Name: "getStory", Description: "Get a single story", ParamNames: "id"},
		{Name: "getComments", Description: "Get comments for a story", ParamNames: "storyId limit"},
		{Name: "getUser", Description: "Get a user profile by ID", ParamNames: "id"},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
		{Name: "read_note", Description: "Read a note by its title."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Show me Hacker News story 38812345", 1)
	// Without a number, the words decide.
	wantFirst(t, ix, docs, "Show me the top Hacker News stories", 0)
}

// A year before a word of a period ("2024 monthly revenue") says when,
// not which chart: a tool that makes a new chart is no tool for another
// form of chart number 2024.
func TestAYearBeforeAPeriodNamesNoItem(t *testing.T) {
	docs := []Document{
		{Name: "generate_flow_diagram", Description: "Generate a flow diagram of steps and decisions, each step on a line.", ParamNames: "nodes edges"},
		{Name: "generate_dual_axes_chart", Description: "Generate a dual axes chart: bars and a line over the same categories.", ParamNames: "categories series"},
	}
	wantFirst(t, NewIndex(docs), docs, "Chart 2024 monthly revenue as bars and profit margin as a line", 1)
}

func TestHasWord(t *testing.T) {
	for _, c := range []struct {
		words, w string
		want     bool
	}{
		{"get comments ", "comment", false},
		{"get comment tree ", "comment", true},
		{"get comment ", "comment", true},
		{"comment ", "comment", true},
		{"recomment ", "comment", false},
		{"", "comment", false},
	} {
		if got := hasWord(c.words, c.w); got != c.want {
			t.Errorf("hasWord(%q, %q) = %v, want %v", c.words, c.w, got, c.want)
		}
	}
}

// A request about a numbered slide is not one to make a slide, unless it
// also speaks of a slide without a number.
func TestSearchDoesNotMakeANewNumberedItem(t *testing.T) {
	docs := []Document{
		{Name: "add_slide", Description: "Add a new slide to the presentation.", ParamNames: "layout title"},
		{Name: "add_shape", Description: "Add a shape (rectangle, oval, arrow) with optional text.", ParamNames: "slide_index shape_type text fill_color"},
		{Name: "delete_slide", Description: "Delete a slide by its number.", ParamNames: "slide_index"},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
		{Name: "read_note", Description: "Read a note by its title."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Add a blue rectangle to slide 2", 1)
	wantFirst(t, ix, docs, "Add a new slide after slide 2", 0)
}

func TestPlacedItems(t *testing.T) {
	stems := newStemCache()
	for text, want := range map[string][]string{
		"Put a bar chart of sales on slide 3":        {"slide"},
		"Add a bar chart of sales to slide 4":        {"slide"},
		"Move the logo into slide 2 of my deck":      {"slide"},
		"Remove slide 4 from pitch.pptx":             nil, // what it acts on
		"Show me Hacker News story 38812345":         nil,
		"Show the comments on Hacker News story 123": nil, // "on" is not before "story"
	} {
		if got := placedItems(text, numberedItems(text), stems); !slices.Equal(got, want) {
			t.Errorf("placedItems(%q) = %q, want %q", text, got, want)
		}
	}
}

// A request that acts at a numbered item wants a tool that takes the item
// as a parameter, not one that makes the thing apart from it.
func TestSearchPrefersAToolThatTakesThePlacedItem(t *testing.T) {
	docs := []Document{
		{Name: "generate_bar_chart", Description: "Generate a bar chart to compare values across categories, such as quarterly sales by region.", ParamNames: "data title width height"},
		{Name: "add_chart", Description: "Add a chart to a slide.", ParamNames: "slide_index chart_type categories series_values"},
		{Name: "get_weather", Description: "Get the weather forecast for a city."},
		{Name: "read_note", Description: "Read a note by its title."},
	}
	ix := NewIndex(docs)
	wantFirst(t, ix, docs, "Add a bar chart of quarterly sales to slide 3 of my deck", 1)
	wantFirst(t, ix, docs, "Put a bar chart of quarterly sales on slide 2", 1)
	// Without a slide, the words decide.
	wantFirst(t, ix, docs, "Make a bar chart of quarterly sales by region", 0)
}

func TestMakesNew(t *testing.T) {
	for name, want := range map[string]bool{
		"add_slide":                     true,
		"createSlideFromTemplate":       true,
		"playwright_insert_blank_slide": true,
		"get_slide_info":                false,
		"slide":                         false,
		"delete_slide":                  false,
		"":                              false,
	} {
		if got := makesNew(Words(name)); got != want {
			t.Errorf("makesNew(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestMadeThing checks what names that make a new thing make: the last
// word after the verb of making, before a preposition.
func TestMadeThing(t *testing.T) {
	for name, want := range map[string]string{
		"add slide ":                  "slide",
		"insert blank slide ":         "slide",
		"create slide from template ": "slide",
		"add issue comment ":          "comment",
		"add chart to slide ":         "chart",
		"get slide ":                  "",
		"add ":                        "",
	} {
		if got := madeThing(name); got != want {
			t.Errorf("madeThing(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestCodedItems(t *testing.T) {
	for text, want := range map[string][]string{
		"Show details of campaign folder 7a1b3c.":        {"folder"},
		"Pull up order ORD-8812 from the orders":         {"order"},
		"Look at pair 0xabc12 on Ethereum":               {"pair"},
		"Remove slide 4 from pitch.pptx":                 {"slide"},
		"Set a gap of 16px between frames":               nil,
		"Book a table at 5pm":                            nil,
		"Export video 1080p":                             nil,
		"Open my note titled 'Meeting notes 2024-05-02'": nil,
		"Remove slide 4-5 from pitch.pptx":               {"slide"},
		"Rename branch v2":                               nil,
	} {
		if got := codedItems(text); !slices.Equal(got, want) {
			t.Errorf("codedItems(%q) = %q, want %q", text, got, want)
		}
		if got := numberedItems(text); slices.ContainsFunc(got, func(w string) bool { return w == "folder" || w == "order" || w == "pair" }) {
			t.Errorf("numberedItems(%q) = %q: a code is no number", text, got)
		}
	}
}

// A request that names one item by its code is no request to list them:
// "show details of campaign folder 7a1b3c" asks for get_folder.
func TestAnItemNamedByItsCodeIsNoRequestToList(t *testing.T) {
	docs := []Document{
		{Name: "list_campaigns", Description: "List all campaigns in your account"},
		{Name: "get_campaign", Description: "Get details of a specific campaign", ParamNames: "campaign_id"},
		{Name: "list_folders", Description: "List all campaign folders"},
		{Name: "get_folder", Description: "Get details of a specific folder", ParamNames: "folder_id"},
	}
	ix := NewIndex(docs)
	for _, text := range []string{"Show details of campaign folder 7a1b3c.", "Show folder FLD-2291"} {
		if moved := movedBy(ix, docs, text, "listing"); !slices.Contains(moved, "list_folders") || slices.ContainsFunc(moved, func(name string) bool { return !strings.HasPrefix(name, "list_") }) {
			t.Errorf("%q: the listing signal moves %q, want list_folders and no tool but a listing one", text, moved)
		}
		wantFirst(t, ix, docs, text, 3)
	}
	if moved := movedBy(ix, docs, "Show the folders of 16px", "listing"); len(moved) > 0 {
		t.Errorf("a quantity names no item, but the listing signal moves %q", moved)
	}
}
