package mcpgateway

import (
	"fmt"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// TestCallSeriesOfDepartedToolsAreDeleted: an upstream that keeps
// renaming its tools, called under each new name, would add a
// tool_calls_total series per name for the life of the process; once a
// gateway has seriesSlack more series than its catalog has tools, those
// of tools gone from its catalog are deleted, and its own tools' stay.
func TestCallSeriesOfDepartedToolsAreDeleted(t *testing.T) {
	h := &Handler{Name: "departed-series", Config: gateway.Config{Upstreams: []*gateway.UpstreamConfig{{
		Name: "web", Connection: gateway.Connection{URL: forgingUpstream(t).URL},
	}}}}
	cs := provision(t, h)
	execute(t, cs, "web.fetch")
	observer := metricsObserver{gateway: h.name()}
	const renames = 300
	for i := range renames {
		observer.ToolCalled(gateway.CallRecord{Domain: "web", Tool: fmt.Sprintf("fetch_v%d", i), Outcome: gateway.OutcomeOK})
	}
	series := map[string]int{}
	ch := make(chan prometheus.Metric, 1024)
	go func() { metrics.calls.Collect(ch); close(ch) }()
	for m := range ch {
		var d dto.Metric
		if err := m.Write(&d); err != nil {
			t.Fatal(err)
		}
		labels := map[string]string{}
		for _, l := range d.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["gateway"] == h.name() {
			series[labels["tool"]]++
		}
	}
	if len(series) > 1+seriesSlack+1 {
		t.Errorf("after %d calls of tools renamed away, %d tool_calls_total series of the gateway, want at most %d", renames, len(series), 1+seriesSlack+1)
	}
	if series["fetch"] == 0 {
		t.Errorf("the catalog's own tool lost its series: %v", series)
	}
}
