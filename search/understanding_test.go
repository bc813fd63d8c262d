package search

import (
	"strings"
	"testing"
)

func TestDescribeLocators(t *testing.T) {
	for in, want := range map[string]string{
		"save it in /root/markdown/bitcoin.md":       "save it in /root/markdown/bitcoin.md file markdown bitcoin",
		"Read the file /root/word/exchange.docx, ok": "Read the file /root/word/exchange.docx, file word document exchange ok",
		"open https://www.youtube.com/watch?v=arj7o": "open https://www.youtube.com/watch?v=arj7o url youtube",
		"see http://user@api.github.com:8080/x":      "see http://user@api.github.com:8080/x url api github",
		"news on www.bbc.co.uk today":                "news on www.bbc.co.uk url bbc today",
		"summarize report.pdf":                       "summarize report.pdf file pdf document report",
		"list ~/projects/":                           "list ~/projects/ directory",
		"open ./notes/todo":                          "open ./notes/todo file todo",
		"version 2.13.4 of jackson e.g. this":        "version 2.13.4 of jackson e.g. this",
		"and/or either/or":                           "and/or either/or",
		"no locators here":                           "no locators here",
		"prices on amazon.com":                       "prices on amazon.com url amazon",
		"news from bbc.co.uk.":                       "news from bbc.co.uk. url bbc",
		"a Node.js server reading app.js":            "a Node.js server reading app.js file javascript code app",
		"U.S. and 2.13.4 and v1.2.in":                "U.S. and 2.13.4 and v1.2.in",
		"":                                           "",
		"/":                                          "/",
		"\x00\xff/\xfe.md":                           "\x00\xff/\xfe.md file markdown \xfe",
	} {
		if got := describeLocators(in); got != want {
			t.Errorf("describeLocators(%q) = %q, want %q", in, got, want)
		}
	}
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
	docs := []Document{
		{Name: "search_cards", Description: "通过关键字搜索游戏王卡牌，可以搜索卡牌名称、效果文本等。", Domain: "ygocdb"},
		{Name: "get_card_image", Description: "通过卡牌ID获取游戏王卡牌的图片", Domain: "ygocdb"},
		{Name: "whatToEat", Description: "不知道吃什么？根据人数直接推荐适合的菜品组合", Domain: "howtocook"},
		{Name: "get_weather", Description: "Get the weather forecast for a city.", Domain: "weather"},
		{Name: "add_picture", Description: "Add a picture to a Word document.", Domain: "word"},
	}
	ix := NewIndex(docs)
	for q, want := range map[string]int{
		"recommend dishes for four people": 2,
		"search Yu-Gi-Oh cards by keyword": 0,
		"北京的天气":                            3,
	} {
		if hits, _ := ix.Search(Request{Text: q, Limit: 3}); len(hits) == 0 || hits[0].Doc != want {
			t.Errorf("%q: want %s first, got %v", q, docs[want].Name, hits)
		}
	}
}

func TestBrandTerms(t *testing.T) {
	stems := newStemCache()
	got := brandTerms("Get a YouTube transcript, an iPhone price, GitHub issues via HTMLParser; not getHTTPResponse, Youtube, NASA, v2Api or 视频YouTube", stems)
	want := []string{"youtub", "iphon", "github", "htmlparser", "youtub"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("brandTerms = %q, want %q", got, want)
	}
}
