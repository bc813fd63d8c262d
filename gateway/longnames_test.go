package gateway

import (
	"fmt"
	"strings"
	"testing"
)

// TestOverlongDomainOrGroupIsRefused: a domain or group argument longer
// than any name can be is refused as invalid, with a short message, and
// never matched against the catalog's names (each suggestion compares the
// whole argument with every name).
func TestOverlongDomainOrGroupIsRefused(t *testing.T) {
	var ups []*UpstreamConfig
	for i := range 4 {
		ups = append(ups, httpUpstream(fmt.Sprintf("domain%02d", i), serveHTTP(t, manyToolsServer(2)).URL))
	}
	tg := startGateway(t, Config{Upstreams: ups})
	long := strings.Repeat("é", 1<<10) // 2 KB, longer than any name
	for _, args := range []map[string]any{{"domain": long}, {"domain": "domain00", "group": long}} {
		msg := callError(t, tg, DiscoverToolsName, args, ErrInvalidArguments)
		if !strings.Contains(msg, "no domain name is longer than 256") && !strings.Contains(msg, "no group name is longer than 256") || len(msg) > 300 {
			t.Errorf("discover_tools with a %d-byte argument answered %q, want a short refusal naming the limit", len(long), clip(msg))
		}
	}
}
