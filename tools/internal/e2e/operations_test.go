package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/caddy-mcp/mcp-gateway/tools/internal/procs"
	"github.com/caddy-mcp/mcp-gateway/tools/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// operationsCaddyfile runs a gateway named "ops" with an HTTP upstream
// (ev) and a stdio one (mem), and its operator page at /ops/ behind basic
// auth (user ops, password ops-password).
func operationsCaddyfile(everythingURL, memFile string) string {
	return fmt.Sprintf(`{
	admin 127.0.0.1:{ADMIN_PORT}
	persist_config off
}
:{HTTP_PORT} {
	bind 127.0.0.1
	mcp_gateway /mcp {
		name ops
		upstream ev %s
		upstream mem {
			command node {NODE_DIR}/node_modules/@modelcontextprotocol/server-memory/dist/index.js
			env MEMORY_FILE_PATH %s
		}
	}
	handle /ops* {
		basic_auth {
			ops $2a$14$Oi2nwqbXDFjJqDBMbKMP6OzxUUFRltiFYIzFEfGdcKqhAalca30Ru
		}
		mcp_gateway_ui
	}
}
`, everythingURL, memFile)
}

// scrape reads Caddy's metrics from its admin endpoint.
func scrape(t *testing.T, adminPort int) map[string]*dto.MetricFamily {
	t.Helper()
	body, err := procs.AdminGet(adminPort, "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parsing Caddy's metrics: %v", err)
	}
	return families
}

// metricValue is the value of the sample of family whose labels include
// labels, or -1 if there is none.
func metricValue(families map[string]*dto.MetricFamily, family string, labels map[string]string) float64 {
	f := families[family]
	if f == nil {
		return -1
	}
next:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range labels {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return -1
}

func adminJSON(t *testing.T, adminPort int, path string, v any) {
	t.Helper()
	body, err := procs.AdminGet(adminPort, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, body)
	}
}

type upstreamStatus struct {
	Name      string `json:"name"`
	State     string `json:"state"`
	Tools     int    `json:"tools"`
	LastError string `json:"last_error"`
}

func gatewayStatus(t *testing.T, adminPort int) (sessions int, upstreams map[string]upstreamStatus) {
	t.Helper()
	var reports []struct {
		Name      string           `json:"name"`
		Sessions  int              `json:"client_sessions"`
		Upstreams []upstreamStatus `json:"upstreams"`
	}
	adminJSON(t, adminPort, "/mcp_gateway/", &reports)
	if len(reports) != 1 || reports[0].Name != "ops" {
		t.Fatalf("gateways = %+v", reports)
	}
	upstreams = map[string]upstreamStatus{}
	for _, u := range reports[0].Upstreams {
		upstreams[u.Name] = u
	}
	return reports[0].Sessions, upstreams
}

// TestOperations: a real Caddy with a gateway, driven by a real client.
// Known calls and searches move the metrics on Caddy's metrics endpoint
// as expected; the admin API reports upstream status (also after an
// upstream is killed), the catalog, searches and search misses, and
// refreshes; each call gets one log line, without argument values.
func TestOperations(t *testing.T) {
	everythingURL, everything := testenv.StartEverythingServer(t)
	caddy := testenv.StartCaddy(t, operationsCaddyfile(everythingURL, filepath.Join(t.TempDir(), "mem.jsonl")))
	httpClient := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "ops"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: caddy.URL("/mcp"), HTTPClient: httpClient}, testenv.SessionOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	call := func(tool string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for range 3 {
		call("execute_tool", map[string]any{"tool_name": "ev.test_simple_text"})
	}
	call("execute_tool", map[string]any{"tool_name": "mem.read_graph"})
	call("execute_tool", map[string]any{"tool_name": "nope.not_a_tool"})
	call("discover_tools", map[string]any{"query": "zzyzx qwertyuiop"})
	call("discover_tools", map[string]any{"query": "entities relations graph"})
	call("discover_tools", map[string]any{"query": "graph of the weather forecast for tomorrow in paris"})

	m := scrape(t, caddy.AdminPort)
	for _, want := range []struct {
		family string
		labels map[string]string
		value  float64
	}{
		{"caddy_mcp_gateway_tool_calls_total", map[string]string{"gateway": "ops", "domain": "ev", "tool": "test_simple_text", "outcome": "ok"}, 3},
		{"caddy_mcp_gateway_tool_calls_total", map[string]string{"gateway": "ops", "domain": "mem", "tool": "read_graph", "outcome": "ok"}, 1},
		{"caddy_mcp_gateway_tool_calls_total", map[string]string{"gateway": "ops", "domain": "", "tool": "", "outcome": "unknown_tool"}, 1},
		{"caddy_mcp_gateway_tool_call_duration_seconds", map[string]string{"gateway": "ops", "domain": "ev"}, 3},
		{"caddy_mcp_gateway_searches_total", map[string]string{"gateway": "ops", "result": "none"}, 1},
		{"caddy_mcp_gateway_searches_total", map[string]string{"gateway": "ops", "result": "found"}, 1},
		{"caddy_mcp_gateway_searches_total", map[string]string{"gateway": "ops", "result": "weak"}, 1},
		{"caddy_mcp_gateway_upstream_up", map[string]string{"gateway": "ops", "upstream": "ev"}, 1},
		{"caddy_mcp_gateway_upstream_up", map[string]string{"gateway": "ops", "upstream": "mem"}, 1},
		{"caddy_mcp_gateway_upstream_reconnects_total", map[string]string{"gateway": "ops", "upstream": "ev"}, 0},
		{"caddy_mcp_gateway_client_sessions", map[string]string{"gateway": "ops"}, 1},
	} {
		if got := metricValue(m, want.family, want.labels); got != want.value {
			t.Errorf("%s%v = %v, want %v", want.family, want.labels, got, want.value)
		}
	}
	if n := metricValue(m, "caddy_mcp_gateway_catalog_tools", map[string]string{"gateway": "ops", "domain": "mem"}); n < 5 {
		t.Errorf("catalog_tools{mem} = %v", n)
	}

	// The admin API.
	sessions, ups := gatewayStatus(t, caddy.AdminPort)
	if sessions != 1 || ups["ev"].State != "ready" || ups["mem"].State != "ready" || ups["mem"].Tools < 5 {
		t.Errorf("status: %d sessions, upstreams %+v", sessions, ups)
	}
	var catalog []struct {
		Name  string `json:"name"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	adminJSON(t, caddy.AdminPort, "/mcp_gateway/catalog?gateway=ops", &catalog)
	if len(catalog) != 2 || catalog[1].Name != "mem" || len(catalog[1].Tools) < 5 {
		t.Errorf("catalog = %+v", catalog)
	}
	var found struct {
		Results []struct {
			Name string `json:"name"`
		} `json:"results"`
	}
	adminJSON(t, caddy.AdminPort, "/mcp_gateway/search?q="+url.QueryEscape("read the knowledge graph"), &found)
	if len(found.Results) == 0 || found.Results[0].Name != "mem.read_graph" {
		t.Errorf("operator search = %+v", found)
	}
	var misses []struct {
		Query string `json:"query"`
		Weak  bool   `json:"weak"`
	}
	adminJSON(t, caddy.AdminPort, "/mcp_gateway/misses", &misses)
	if len(misses) != 2 || !misses[0].Weak || misses[1].Query != "zzyzx qwertyuiop" {
		t.Errorf("misses = %+v (operator searches must not count)", misses)
	}
	resp, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d/mcp_gateway/refresh", caddy.AdminPort), "", nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("POST refresh: %v %v", err, resp)
	}
	if _, err := procs.AdminGet(caddy.AdminPort, "/mcp_gateway/refresh"); err == nil || !strings.Contains(err.Error(), "405") {
		t.Errorf("GET refresh: %v, want 405", err)
	}
	if _, err := procs.AdminGet(caddy.AdminPort, "/mcp_gateway/catalog?gateway=nope"); err == nil || !strings.Contains(err.Error(), "no gateway named") {
		t.Errorf("unknown gateway: %v", err)
	}

	// One log line per call, with who, what, how long, how it ended, and
	// no argument values.
	callLines := 0
	for _, line := range strings.Split(caddy.Output(), "\n") {
		if !strings.Contains(line, `"msg":"tool call"`) {
			continue
		}
		callLines++
		var entry map[string]any
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		for _, k := range []string{"identity", "domain", "tool", "duration", "outcome"} {
			if _, ok := entry[k]; !ok {
				t.Errorf("call log line lacks %q: %s", k, line)
			}
		}
		if _, ok := entry["arguments"]; ok {
			t.Errorf("argument values logged without log_values: %s", line)
		}
	}
	if callLines != 5 {
		t.Errorf("%d tool call log lines, want 5", callLines)
	}

	// A reload keeps the counters, as Caddy's own metrics keep theirs.
	caddy.Reload(t, strings.Replace(caddy.Caddyfile(t), "name ops", "name ops\n\t\tmax_sessions 50", 1))
	// The reload closes the old server's idle keep-alive connections; an
	// HTTP/1.1 client that writes a POST on one just as it closes gets EOF
	// (README, Resilience). This client drops them, as one that knows of
	// the reload would; the session itself carries over.
	httpClient.CloseIdleConnections()
	m = scrape(t, caddy.AdminPort)
	if got := metricValue(m, "caddy_mcp_gateway_tool_calls_total", map[string]string{"gateway": "ops", "domain": "ev", "tool": "test_simple_text", "outcome": "ok"}); got != 3 {
		t.Errorf("after a reload tool_calls_total{ev ok} = %v, want 3", got)
	}

	// Kill an upstream: the admin API and the metrics say so.
	syscall.Kill(-everything.Cmd.Process.Pid, syscall.SIGKILL)
	<-everything.Exited()
	deadline := time.Now().Add(15 * time.Second)
	for {
		call("execute_tool", map[string]any{"tool_name": "ev.test_simple_text"}) // finds the connection broken
		_, ups = gatewayStatus(t, caddy.AdminPort)
		if ups["ev"].State == "unavailable" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the killed upstream is still %q", ups["ev"].State)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if ups["ev"].LastError == "" || ups["mem"].State != "ready" {
		t.Errorf("after the kill: %+v", ups)
	}
	m = scrape(t, caddy.AdminPort)
	if up := metricValue(m, "caddy_mcp_gateway_upstream_up", map[string]string{"gateway": "ops", "upstream": "ev"}); up != 0 {
		t.Errorf("upstream_up{ev} = %v after the kill", up)
	}
	if n := metricValue(m, "caddy_mcp_gateway_tool_calls_total", map[string]string{"gateway": "ops", "domain": "ev", "outcome": "unavailable"}); n < 1 {
		t.Errorf("no unavailable calls counted: %v", n)
	}
}
