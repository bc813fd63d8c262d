package search

import (
	"slices"
	"strings"
	"testing"
)

func TestAskedForWords(t *testing.T) {
	for text, want := range map[string][]string{
		"Get the latitude and longitude of the Eiffel Tower":             {"latitude", "longitude"},
		"What are the latitude and longitude of the Eiffel Tower?":       {"latitude", "longitude"},
		"Give me the author, page count and word count of proposal.docx": {"author", "page", "count", "word", "count"},
		"What's the BPM of my song.wav?":                                 {"bpm"},
		"Find the Context7 library ID for Next.js":                       {"context7", "library", "id"},
		"Pull the text out of /docs/report.pdf":                          {"text"},
		"Please look up the ticker symbol for Rivian":                    {"ticker", "symbol"},
		// A page of a list asks for the list.
		"Show me the first page of archived support tickets": nil,
		"Fetch the next page of results for query 9f2c":      nil,
		"Get the weather":                        nil,
		"Set the latitude of the marker to 40.7": nil,
		"What is a good name for my cat?":        nil,
		"":                                       nil,
	} {
		if got := askedForWords(text); !slices.Equal(got, want) {
			t.Errorf("askedForWords(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestInputWords(t *testing.T) {
	stems := newStemCache()
	for _, c := range []struct {
		doc  Document
		want string
	}{
		{Document{Name: "reverse_geocode", Description: "Convert geographic coordinates to a detailed address.\n\nArgs:\n    latitude: the latitude", ParamNames: "latitude longitude"}, "latitude longitude "},
		// Its description's first sentence says it gives BPM.
		{Document{Name: "tempo", Description: "Estimates the tempo (in BPM) of the given audio time series. Offset is optional.", ParamNames: "start_bpm max_tempo"}, "start max "},
		// A flag chooses what it gives.
		{Document{Name: "read_pdf", Description: "Reads content/metadata from one or more PDFs.", ParamNames: "include_full_text sources"}, "sources "},
		{Document{Name: "geocode_address", Description: "Convert an address to geographic coordinates.", ParamNames: "address"}, ""},
	} {
		d := c.doc
		if got := inputWords(&d, terms(d.Name, stems), nil, stems); got != c.want {
			t.Errorf("inputWords(%s) = %q, want %q", d.Name, got, c.want)
		}
	}
}

func TestSearchDoesNotOfferWhatTakesWhatIsAsked(t *testing.T) {
	docs := []Document{
		{Name: "geocode_address", Description: "Convert an address or place name to geographic coordinates with detailed location information.", ParamNames: "address"},
		{Name: "reverse_geocode", Description: "Convert geographic coordinates to a detailed address and location description.\n\nThis tool takes a specific point on Earth (latitude and longitude) and returns information about that location.\n\nArgs:\n    latitude: the latitude\n    longitude: the longitude", ParamNames: "latitude longitude"},
		{Name: "get_weather", Description: "Get current weather and forecast for a specific location.\n\nArgs:\n    latitude: Latitude of the location\n    longitude: Longitude of the location", ParamNames: "latitude longitude location_name"},
		{Name: "get_route_directions", Description: "Calculate detailed route directions between two geographic points.", ParamNames: "from_latitude from_longitude mode to_latitude to_longitude"},
	}
	ix := NewIndex(docs)
	// The tools that take a latitude and a longitude keep half their
	// score for a request to be told them.
	for _, q := range []string{"Get the latitude and longitude of the Eiffel Tower", "What are the latitude and longitude of the Sydney Opera House?"} {
		hits, _ := ix.Search(Request{Text: q, Limit: 4, Explain: true})
		if len(hits) != 3 {
			t.Fatalf("%q: hits %v, want the three tools that take a latitude", q, hits)
		}
		for _, h := range hits {
			if s := h.Explanation.Signals; len(s) == 0 || s[len(s)-1].Signal != "asked for" || s[len(s)-1].Times != 1-askedInputPenalty {
				t.Errorf("%q: %s is not marked down for taking what is asked: %v", q, docs[h.Doc].Name, s)
			}
		}
	}
	// Given them, the tool that takes them is the one.
	wantFirst(t, ix, docs, "What's the address at latitude 48.8584, longitude 2.2945?", 1)
}

// FuzzInputWords checks that a tool's text, which comes from upstream
// servers, never makes inputWords panic, and that what it gives are words
// of the parameter names.
func FuzzInputWords(f *testing.F) {
	for _, seed := range [][3]string{
		{"tempo", "Estimates the tempo (in BPM).", "start_bpm"},
		{"reverse_geocode", "\n\nConvert coordinates. Args:\n latitude", "latitude longitude include_full_text"},
		{"", "", ""},
		{"x", "\xff\xfe. ", "a__b --c 卡牌ID _"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	stems := newStemCache()
	f.Fuzz(func(t *testing.T, name, description, params string) {
		doc := Document{Name: name, Description: description, ParamNames: params}
		got := inputWords(&doc, terms(name, stems), nil, stems)
		paramWords := Words(params)
		for _, w := range strings.Fields(got) {
			if !slices.Contains(paramWords, w) {
				t.Fatalf("inputWords(%q, %q, %q) gave %q, not a word of the parameter names", name, description, params, w)
			}
		}
	})
}
