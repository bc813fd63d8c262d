// Package cedict gives the gateway's search a Chinese-English glossary,
// for catalogs whose tools are described in Chinese: with it, such a tool
// is found by English words as well as by Chinese ones, and an English
// tool by a request in Chinese. Without it, Chinese text is matched by its
// own characters only, and the gateway logs a warning when a catalog
// holds Chinese.
//
// It is 1.27 MB of data (and 0.12 MB of Zstandard decoder), so the module
// does not link it unless asked: import it for its side effect,
//
//	import _ "github.com/caddy-mcp/mcp-gateway/search/cedict"
//
// or, with xcaddy, add it beside the module:
//
//	xcaddy build --with github.com/caddy-mcp/mcp-gateway \
//	    --with github.com/caddy-mcp/mcp-gateway/search/cedict
//
// The glossary is unpacked on first use, by the first index or query
// holding Chinese (about 20 ms and 5 MiB), never otherwise.
//
// cedict.zst is derived from CC-CEDICT (https://cc-cedict.org, by MDBG, CC
// BY-SA 4.0): lines of "headword<TAB>English gloss", sorted by headword,
// compressed with Zstandard (zstd --ultra -22: 1.27 MB, where gzip -9
// took 1.75 MB). tools/internal/gencedict writes it; THIRD_PARTY.md says
// what was changed.
package cedict

import (
	_ "embed"

	"github.com/caddy-mcp/mcp-gateway/search"
	"github.com/klauspost/compress/zstd"
)

//go:embed cedict.zst
var cedictZst []byte

func init() { search.UseGlossary(Text) }

// Text is the glossary unpacked: lines of "headword<TAB>English gloss",
// sorted by headword; nil if it cannot be unpacked.
func Text() []byte {
	zr, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil
	}
	defer zr.Close()
	data, err := zr.DecodeAll(cedictZst, nil)
	if err != nil {
		return nil
	}
	return data
}
