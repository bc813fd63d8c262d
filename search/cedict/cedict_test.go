package cedict_test

import (
	"bytes"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/search"
	"github.com/caddy-mcp/mcp-gateway/search/cedict"
)

// TestImportGivesTheGlossary: a build that imports the package has the
// glossary, so a tool described in Chinese is found by English words, and
// nothing is reported unglossed.
func TestImportGivesTheGlossary(t *testing.T) {
	docs := []search.Document{
		{Name: "tool_a", Description: "通过卡牌ID获取游戏王卡牌的图片", Domain: "cards"},
		{Name: "tool_b", Description: "查询城市的天气预报", Domain: "forecast"},
		{Name: "tool_c", Description: "Add a picture to a Word document.", Domain: "word"},
	}
	ix := search.NewIndex(docs)
	for q, want := range map[string]int{"weather forecast for a city": 1, "card picture": 0} {
		if hits, _ := ix.Search(search.Request{Text: q, Limit: 3}); len(hits) == 0 || hits[0].Doc != want {
			t.Errorf("%q: want %s first, got %v", q, docs[want].Name, hits)
		}
	}
	if search.UnglossedChinese(docs[1].Description) {
		t.Error("UnglossedChinese is true in a build with the glossary")
	}
}

// TestTextIsTheGlossary: the embedded data unpacks to sorted lines of
// "headword<TAB>English gloss".
func TestTextIsTheGlossary(t *testing.T) {
	text := cedict.Text()
	lines := bytes.Split(bytes.TrimSuffix(text, []byte("\n")), []byte("\n"))
	if len(lines) < 100000 {
		t.Fatalf("%d lines, want the whole glossary (over 100,000 headwords)", len(lines))
	}
	for i, l := range lines {
		head, gloss, ok := bytes.Cut(l, []byte("\t"))
		if !ok || len(head) == 0 || len(gloss) == 0 {
			t.Fatalf("line %d is not headword<TAB>gloss: %q", i+1, l)
		}
		if i > 0 && bytes.Compare(lines[i-1], l) >= 0 {
			t.Fatalf("lines %d and %d are out of order: %q, %q", i, i+1, lines[i-1], l)
		}
	}
}
