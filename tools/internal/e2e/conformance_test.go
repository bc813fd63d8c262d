package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
)

// TestConformanceThroughGateway runs the official MCP conformance suite
// against the go-sdk conformance server directly (the baseline) and
// through a real Caddy with the gateway in passthrough mode in front of it
// (stateful, per-client sessions, no prefix): every check that passes
// directly must pass through the gateway.
func TestConformanceThroughGateway(t *testing.T) {
	everythingURL, _ := testenv.StartEverythingServer(t)
	direct := testenv.RunConformance(t, everythingURL)
	passedDirect := direct.Passed()
	slices.Sort(passedDirect)
	if len(passedDirect) < 40 {
		t.Fatalf("only %d checks pass directly against the go-sdk server (want the 40 the suite has):\n%s", len(passedDirect), direct.Output)
	}

	caddy := testenv.StartCaddy(t, fmt.Sprintf(`{
	admin off
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	mcp_gateway /mcp* {
		mode passthrough
		upstream everything %s {
			prefix ""
			session per_client
			relay_roots
		}
	}
}
`, everythingURL))
	through := testenv.RunConformance(t, caddy.URL("/mcp"))
	var lost []string
	for _, check := range passedDirect {
		if want, ok := answeredInJSON[check]; ok && through.Checks[check] == want {
			continue
		}
		if through.Checks[check] != "SUCCESS" {
			lost = append(lost, fmt.Sprintf("%s (%s)", check, orMissing(through.Checks[check])))
		}
	}
	t.Logf("conformance: %d checks pass directly, %d of them through the gateway", len(passedDirect), len(passedDirect)-len(lost))
	if len(lost) > 0 {
		t.Errorf("checks that pass directly but not through the gateway:\n  %s\nsuite output:\n%s", strings.Join(lost, "\n  "), through.Output)
	}
}

// answeredInJSON are the checks that apply only to a server answering
// with event streams, with the status the suite gives them instead when
// the answers are plain JSON, as the gateway's are when nothing but the
// answer is sent (gateway/jsonanswer.go): the suite reports streams as
// optional then.
var answeredInJSON = map[string]string{
	"server-sse-multiple-streams/server-sse-streams-functional": "INFO",
}

// TestConformanceMetaMode runs the conformance scenarios that apply to a
// server with three tools against the gateway in meta mode.
func TestConformanceMetaMode(t *testing.T) {
	everythingURL, _ := testenv.StartEverythingServer(t)
	caddy := testenv.StartCaddy(t, fmt.Sprintf(`{
	admin off
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	mcp_gateway /mcp* {
		upstream everything %s
	}
}
`, everythingURL))
	scenarios := []string{"server-initialize", "ping", "tools-list", "logging-set-level", "dns-rebinding-protection"}
	res := testenv.RunConformance(t, caddy.URL("/mcp"), scenarios...)
	for _, s := range scenarios {
		n := 0
		for check, status := range res.Checks {
			if strings.HasPrefix(check, s+"/") {
				n++
				if status != "SUCCESS" {
					t.Errorf("%s: %s", check, status)
				}
			}
		}
		if n == 0 {
			t.Errorf("scenario %s ran no checks", s)
		}
	}
	if t.Failed() {
		t.Logf("suite output:\n%s", res.Output)
	}
}

func orMissing(status string) string {
	if status == "" {
		return "not run"
	}
	return status
}
