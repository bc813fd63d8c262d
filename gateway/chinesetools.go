package gateway

import (
	"fmt"

	"github.com/caddy-mcp/mcp-gateway/search"
)

// GlossaryPackage is the package that gives the search its Chinese-English
// glossary, for the builds that add it (see search.UseGlossary).
const GlossaryPackage = "github.com/caddy-mcp/mcp-gateway/search/cedict"

// chineseToolsNotice is the notice for an upstream some of whose tools
// describe themselves in Chinese (their title, or the description the
// catalog uses: the operator's if there is one) when the build has no
// glossary to read it in English; "" otherwise. Such a tool is found by
// the Chinese words of a request only.
func chineseToolsNotice(cfg *UpstreamConfig, tools []vettedTool) string {
	n := 0
	for _, vt := range tools {
		desc := vt.def.Description
		if o, ok := cfg.Tools[vt.upstream]; ok && o.Description != "" {
			desc = o.Description
		}
		if search.UnglossedChinese(vt.def.Title) || search.UnglossedChinese(desc) {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d of the upstream's tools describe themselves in Chinese, and this Caddy has no Chinese glossary: discover_tools finds them by the Chinese words of a request only, not by English ones; build Caddy with --with %s (or the build tag mcpgateway_cedict) to find them by both", n, GlossaryPackage)
}
