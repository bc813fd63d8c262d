package gateway

import (
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestChineseToolsWithoutGlossaryAreNoticed: this package's tests link no
// glossary (package search/cedict is not imported), so an upstream whose
// tools describe themselves in Chinese gets a notice naming the package
// to add, with the count of such tools, once; an English upstream none. A
// tool whose operator's description replaces the Chinese one is not
// counted.
func TestChineseToolsWithoutGlossaryAreNoticed(t *testing.T) {
	cn := mcp.NewServer(&mcp.Implementation{Name: "cn"}, nil)
	addTextTool(cn, "get_card_image", "获取卡牌的图片", "card")
	addTextTool(cn, "get_weather", "查询城市的天气预报", "weather")
	addTextTool(cn, "get_train", "查询火车票", "train")
	en := mcp.NewServer(&mcp.Implementation{Name: "en"}, nil)
	addTextTool(en, "get_weather", "The weather forecast for a city.", "weather")
	cnUp := httpUpstream("cn", serveHTTP(t, cn).URL)
	cnUp.Tools = map[string]ToolOverride{"get_train": {Description: "Find train tickets between two stations."}}
	tg := startGateway(t, Config{Upstreams: []*UpstreamConfig{cnUp, httpUpstream("en", serveHTTP(t, en).URL)}})

	want := "2 of the upstream's tools describe themselves in Chinese, and this Caddy has no Chinese glossary"
	reports := tg.Upstreams()
	var cnNotices, enNotices []string
	for _, r := range reports {
		switch r.Name {
		case "cn":
			cnNotices = r.Notices
		case "en":
			enNotices = r.Notices
		}
	}
	i := slices.IndexFunc(cnNotices, func(n string) bool { return strings.HasPrefix(n, want) })
	if i < 0 || !strings.Contains(cnNotices[i], "--with "+GlossaryPackage) {
		t.Errorf("notices of the Chinese upstream: %q; want one starting %q and naming %s", cnNotices, want, GlossaryPackage)
	}
	if slices.ContainsFunc(enNotices, func(n string) bool { return strings.Contains(n, "Chinese") }) {
		t.Errorf("notices of the English upstream: %q; want none about Chinese", enNotices)
	}
}
