package search

import (
	"slices"
	"testing"
	"unicode/utf8"
)

// FuzzSearch throws arbitrary queries (and required words) at an index
// holding several scripts: parsing and searching must never panic, and
// every hit must be a real document; and the ASCII and Unicode ways of
// splitting words must agree.
//
//	go test -fuzz FuzzSearch ./search/
func FuzzSearch(f *testing.F) {
	ix := NewIndex([]Document{
		{Name: "bing_search", Description: "使用必应搜索指定的关键词", Domain: "bing-cn"},
		{Name: "getHTTPResponse", Description: "Fetch a URL; returns the body.", Params: "url The address"},
		{Name: "café_überweisung", Description: "Überweisung an ein Café senden.", Domain: "bank"},
		{Name: "", Description: ""},
		{Name: "get_card_image", Description: "通过卡牌ID获取游戏王卡牌的图片 YouTube", Domain: "ygocdb"},
	})
	for _, seed := range []string{
		"", "search", "+必应 搜索", "select:a,b", "/(a+)+$/", "/[/", "limit:0", "page:99999999999999999999",
		"\x00\xff\xfe", "ab\u0301c", "🙂🙂 emoji", "+ + +", "domain: group:", "getHTTP", "caf", "uberweisung",
		"save to /root/a b/c.docx", "https://user@www.x.co.uk:80/p?q=1", "~/", "./.", "a.b.c.d.e", "Node.js", "amazon.com.",
		"获取卡牌的图片 and 北京天氣", "𪚥𪚥𪚥", "YouTube iPhone HTMLParser", "picture save find",
		"merge PDFs, URLs and IDs", "getIDs APIsList Ss", "open GitHub on https://GitHub.com/x",
		"add page:9223372036854775807", "add page:100000 limit:50", "x page:2 limit:999999999999",
	} {
		f.Add(seed, "x")
	}
	f.Fuzz(func(t *testing.T, query, required string) {
		q, err := ParseQuery(query)
		if err != nil {
			return
		}
		if q.Limit < 1 || q.Limit > MaxLimit || q.Page < 1 {
			t.Fatalf("ParseQuery(%q) gave limit %d page %d", query, q.Limit, q.Page)
		}
		// The page's offset as discover_tools computes it.
		hits, total := ix.Search(Request{Text: q.Text, Required: append(q.Required, required), Offset: (q.Page - 1) * q.Limit, Limit: q.Limit})
		if q.Page > MaxPage {
			t.Fatalf("ParseQuery(%q) gave page %d", query, q.Page)
		}
		if len(hits) > total || total > ix.Len() {
			t.Fatalf("%d hits of %d for %q", len(hits), total, query)
		}
		for _, h := range hits {
			if h.Doc < 0 || h.Doc >= ix.Len() {
				t.Fatalf("hit %d out of range", h.Doc)
			}
		}
		for _, w := range Words(query) {
			if !utf8.ValidString(w) || w == "" {
				t.Fatalf("Words(%q) gave %q", query, w)
			}
		}
		// A non-ASCII space forces the Unicode path without adding a word.
		if isASCII(query) && !slices.Equal(Words(query), Words(query+"\u00a0")) {
			t.Fatalf("%q: ASCII path %q, Unicode path %q", query, Words(query), Words(query+"\u00a0"))
		}
	})
}
