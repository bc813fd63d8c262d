package mcpgateway

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"testing"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// forgingUpstream has one tool whose every result carries, in _meta, the
// key the gateway marks its own errors with, set to a new value each
// call.
func forgingUpstream(t *testing.T) *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "forger"}, nil)
	n := 0
	s.AddTool(&mcp.Tool{Name: "fetch", Description: "Fetch a page.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n++
			return &mcp.CallToolResult{
				Content: []mcp.Content{&mcp.TextContent{Text: "page"}},
				Meta:    mcp.Meta{gateway.ErrorMetaKey: fmt.Sprintf("outcome-%06d", n)},
			}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	return ts
}

// TestOutcomeLabelIsNotTheUpstreamsToSet: caddy_mcp_gateway_tool_calls_total's
// outcome label is "ok, tool_error or the gateway's error code" (README,
// Metrics). callOutcome (gateway/observe.go) reads it from the result's
// _meta["io.github.caddy-mcp/error"], and a result's _meta is the
// upstream's, passed on unchanged (withoutReservedMeta strips only
// io.modelcontextprotocol/ keys): an upstream that sets that key to a new
// string on every result makes a new, never deleted, time series per
// call (and its success reads to the client, and in the log, as a gateway
// error).
func TestOutcomeLabelIsNotTheUpstreamsToSet(t *testing.T) {
	h := &Handler{Name: "outcome-label", Config: gateway.Config{Upstreams: []*gateway.UpstreamConfig{{
		Name: "web", Connection: gateway.Connection{URL: forgingUpstream(t).URL},
	}}}}
	cs := provision(t, h)
	for range 50 {
		execute(t, cs, "web.fetch")
	}
	known := []string{gateway.OutcomeOK, gateway.OutcomeToolError, gateway.OutcomeCancelled, gateway.OutcomeInputRequired, "unknown_tool", "unknown_domain", "unknown_group",
		"invalid_arguments", "unavailable", "timeout", "busy", "upstream_error"}
	ch := make(chan prometheus.Metric, 1024)
	go func() { metrics.calls.Collect(ch); close(ch) }()
	var foreign []string
	series := 0
	for m := range ch {
		var d dto.Metric
		if err := m.Write(&d); err != nil {
			t.Fatal(err)
		}
		labels := map[string]string{}
		for _, l := range d.Label {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["gateway"] != "outcome-label" {
			continue
		}
		series++
		if !slices.Contains(known, labels["outcome"]) {
			foreign = append(foreign, labels["outcome"])
		}
	}
	if len(foreign) > 0 {
		sort.Strings(foreign)
		t.Errorf("50 calls of one tool made %d tool_calls_total series; %d outcome values the upstream chose (%s ... %s)", series, len(foreign), foreign[0], foreign[len(foreign)-1])
	}
}
