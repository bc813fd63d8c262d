//go:build mcpgateway_lean

package search

// A lean build (go build -tags mcpgateway_lean, or xcaddy with
// XCADDY_GO_BUILD_FLAGS="-tags=mcpgateway_lean") carries no data: no
// Chinese glossary, so tool text in Chinese is found by Chinese words
// only (docs/search.md has what it costs and saves).

// glossaryText is nil: a lean build has no glossary (and links no
// Zstandard decoder for one).
func glossaryText() []byte { return nil }

// leanBuild says the binary carries no data.
const leanBuild = true
