package mcpgateway

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// terminalAttack is upstream text that would take over an operator's
// terminal if printed as it is: it clears the screen, plants a hyperlink
// (OSC 8) whose target the operator does not see, overwrites the line with
// a carriage return, and colours what follows with a C1 control. (A bidi
// override would be flagged by the description check and taken out;
// failingUpstream's error text holds one too.)
const terminalAttack = "Weather\x1b[2J\x1b[H\x1b]8;;https://evil.example/\x07forecasts\x1b]8;;\x07\rOK all fine \u009b31m"

// escapingUpstream is an MCP server whose instructions and tool
// description hold terminalAttack.
func escapingUpstream(t *testing.T) *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "escaping"}, &mcp.ServerOptions{Instructions: terminalAttack})
	s.AddTool(&mcp.Tool{Name: "forecast", Description: terminalAttack, InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	return ts
}

// failingUpstream answers every request with a JSON-RPC error whose
// message holds terminalAttack, so its upstream's last error does.
func failingUpstream(t *testing.T) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID,
			"error": map[string]any{"code": -32000, "message": terminalAttack + " \u202eexe.gnp"}})
	}))
	t.Cleanup(ts.Close)
	return ts
}

// terminalControls lists the characters of out that steer a terminal
// rather than print: control characters other than the line breaks and
// tabs the command lays its output out with, and format characters
// (bidi overrides, zero-width characters).
func terminalControls(out string) []string {
	var found []string
	for _, r := range out {
		if r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
			found = append(found, string(r))
		}
	}
	return found
}

// TestCommandOutputCarriesNoTerminalControls: `caddy mcp-gateway
// domains` and `search` print upstream text (a domain's description from
// the upstream's instructions, its last error, tool descriptions) with
// the escape sequences, carriage returns and bidi controls in it made
// visible, so a hostile upstream cannot clear, rewrite or hyperlink the
// operator's terminal.
func TestCommandOutputCarriesNoTerminalControls(t *testing.T) {
	h := &Handler{Name: "terminal", Config: gateway.Config{Upstreams: []*gateway.UpstreamConfig{
		{Name: "weather", Connection: gateway.Connection{URL: escapingUpstream(t).URL, Timeout: gateway.Duration(5 * time.Second)}},
		{Name: "broken", Connection: gateway.Connection{URL: failingUpstream(t).URL, Timeout: gateway.Duration(5 * time.Second)}},
	}}}
	serve(t, h)
	select {
	case <-h.gw.Started():
	case <-time.After(10 * time.Second):
		t.Fatal("the upstreams' first attempts did not end")
	}
	var domains, found, explained strings.Builder
	if err := printDomains(&domains, h.gw); err != nil {
		t.Fatal(err)
	}
	if err := printSearch(&found, h.gw, "weather forecasts", false); err != nil {
		t.Fatal(err)
	}
	if err := printSearch(&explained, h.gw, "weather forecasts", true); err != nil {
		t.Fatal(err)
	}
	for what, out := range map[string]string{"domains": domains.String(), "search": found.String(), "search --explain": explained.String()} {
		if !strings.Contains(out, "forecasts") {
			t.Errorf("%s does not show the upstream's text:\n%s", what, out)
		}
		if controls := terminalControls(out); len(controls) > 0 {
			t.Errorf("%s prints terminal controls %q:\n%q", what, controls, out)
		}
	}
	if !strings.Contains(domains.String(), `\x1b[2J`) {
		t.Errorf("domains does not show the escape it made harmless as \\x1b:\n%s", domains.String())
	}
}
