package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
)

// TestConformance2026ThroughGateway runs the 2026-07-28 conformance suite
// (`server --requirements 2026-07-28`) against the go-sdk conformance
// server over stateless HTTP directly (the baseline: every scenario the
// revision requires passes), and through a real Caddy with the gateway in
// passthrough mode with default settings in front of it: every required
// scenario that passes directly must pass through the gateway, with a
// client of the 2026-07-28 revision on the same endpoint that serves the
// earlier ones.
func TestConformance2026ThroughGateway(t *testing.T) {
	everythingURL, _ := testenv.StartStatelessEverythingServer(t)
	direct := testenv.RunConformance2026(t, everythingURL)
	var baseline []string
	for _, s := range direct.Required {
		if direct.ScenarioPassed(s) {
			baseline = append(baseline, s)
		}
	}
	if len(direct.Required) < 37 || len(baseline) < len(direct.Required) {
		t.Fatalf("%d of the %d scenarios 2026-07-28 requires pass directly against the go-sdk server (want all, 37 or more):\n%s",
			len(baseline), len(direct.Required), direct.Output)
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
	through := testenv.RunConformance2026(t, caddy.URL("/mcp"))
	var lost []string
	for _, s := range baseline {
		if !through.ScenarioPassed(s) {
			lost = append(lost, s+": "+failedChecks(through.Scenario(s)))
		}
	}
	t.Logf("2026-07-28 conformance: %d of %d required scenarios pass directly, %d of them through the gateway",
		len(baseline), len(direct.Required), len(baseline)-len(lost))
	// Checks that succeed directly and only warn (a SHOULD) through the
	// gateway do not fail a scenario; they are worth seeing.
	for _, d := range direct.Checks {
		for _, c := range through.Scenario(d.Scenario) {
			if c.ID == d.ID && d.Status == "SUCCESS" && c.Status == "WARNING" {
				t.Logf("passes directly, warns through the gateway: %s/%s: %s", c.Scenario, c.ID, c.Message)
				break
			}
		}
	}
	if len(lost) > 0 {
		t.Errorf("required scenarios that pass directly but not through the gateway:\n  %s\nsuite output:\n%s",
			strings.Join(lost, "\n  "), through.Output)
	}
}

// notTestableInMetaMode are the checks of the 2026-07-28 suite that cannot
// pass against a server listing only the three meta-tools: they need
// diagnostic tools of the conformance server (test_missing_capability,
// test_streaming_elicitation, test_logging_tool, test_trigger_*) in
// tools/list. Each is named with the status and the start of the message
// it must have, so that any other failure fails the test.
var notTestableInMetaMode = map[string]struct{ status, message string }{
	"server-stateless/sep-2575-server-rejects-undeclared-capability":          {"FAILURE", "Not testable: server does not list the diagnostic tool"},
	"server-stateless/sep-2575-missing-capability-http-400":                   {"FAILURE", "Not testable: server does not list the diagnostic tool"},
	"server-stateless/sep-2575-http-server-no-independent-requests-on-stream": {"FAILURE", "Not testable: server does not list the diagnostic tool"},
	"server-stateless/sep-2575-server-no-log-without-loglevel":                {"FAILURE", "Not testable: server does not list the diagnostic tool"},
	// The suite mutates the tool list through a diagnostic tool it cannot
	// call in meta mode, so no list_changed follows (a SHOULD); meta mode
	// has no prompts to mutate.
	"server-stateless/sep-2575-server-sends-tools-list-changed-on-subscription":   {"WARNING", "Mutated the tool list but no notifications/tools/list_changed arrived"},
	"server-stateless/sep-2575-server-sends-prompts-list-changed-on-subscription": {"SKIPPED", ""},
	// Meta mode lists no resources, so there is none to read.
	"caching/sep-2549-resources-read-caching-hints": {"SKIPPED", "resources/read was not exercised"},
}

// TestConformance2026MetaMode runs the 2026-07-28 scenarios that apply to
// a server with three tools against the gateway in meta mode (default
// settings): every check succeeds except the ones notTestableInMetaMode
// names.
func TestConformance2026MetaMode(t *testing.T) {
	everythingURL, _ := testenv.StartStatelessEverythingServer(t)
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
	scenarios := []string{"server-stateless", "tools-list", "dns-rebinding-protection", "caching", "http-header-validation"}
	res := testenv.RunConformance2026(t, caddy.URL("/mcp"), scenarios...)
	seen := map[string]bool{}
	for _, s := range scenarios {
		checks := res.Scenario(s)
		if len(checks) == 0 {
			t.Errorf("scenario %s ran no checks", s)
		}
		for _, c := range checks {
			key := c.Scenario + "/" + c.ID
			if c.Status == "SUCCESS" {
				continue
			}
			if want, ok := notTestableInMetaMode[key]; ok && c.Status == want.status && strings.HasPrefix(c.Message, want.message) {
				seen[key] = true
				continue
			}
			t.Errorf("%s: %s: %s", key, c.Status, c.Message)
		}
	}
	for key := range notTestableInMetaMode {
		if !seen[key] {
			t.Logf("%s now succeeds (or did not run): notTestableInMetaMode may drop it", key)
		}
	}
	if t.Failed() {
		t.Logf("suite output:\n%s", res.Output)
	}
}

// failedChecks says which of a scenario's checks failed, and why.
func failedChecks(checks []testenv.ConformanceCheck) string {
	if len(checks) == 0 {
		return "not run"
	}
	var out []string
	for _, c := range checks {
		if c.Status == "FAILURE" {
			out = append(out, c.ID+" ("+c.Message+")")
		}
	}
	return strings.Join(out, "; ")
}
