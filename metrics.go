package mcpgateway

import (
	"errors"
	"sync"

	"github.com/caddy-mcp/mcp-gateway/gateway"
	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// The gateway's Prometheus metrics live in Caddy's metrics registry, so
// they appear wherever Caddy's own do (the admin endpoint's /metrics, the
// `metrics` handler). The collectors are made once per process and
// registered in each config's registry, so counters carry across reloads
// as Caddy's own do.
//
//	caddy_mcp_gateway_tool_calls_total{gateway,domain,tool,outcome}  (series of tools gone from the catalog are deleted, see callSeries)
//	caddy_mcp_gateway_tool_call_duration_seconds{gateway,domain}
//	caddy_mcp_gateway_searches_total{gateway,result}       result: found, weak, none
//	caddy_mcp_gateway_upstream_up{gateway,upstream}        1 ready, 0 otherwise
//	caddy_mcp_gateway_upstream_reconnects_total{gateway,upstream}
//	caddy_mcp_gateway_catalog_tools{gateway,domain}
//	caddy_mcp_gateway_client_sessions{gateway}
//	caddy_mcp_gateway_tool_changes_total{gateway,upstream}  tool definitions changed since pinned (once per new definition)
//	caddy_mcp_gateway_tool_changes_pending{gateway,upstream} changed tools not yet accepted
//	caddy_mcp_gateway_tools_held{gateway,upstream}          of those, held out of the catalog (on_tool_change hold)
var metrics = struct {
	once         sync.Once
	calls        *prometheus.CounterVec
	callDuration *prometheus.HistogramVec
	searches     *prometheus.CounterVec
	toolChanges  *prometheus.CounterVec
	state        stateCollector
}{}

const metricsNamespace, metricsSubsystem = "caddy", "mcp_gateway"

func initMetrics() {
	metrics.once.Do(func() {
		metrics.calls = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Subsystem: metricsSubsystem, Name: "tool_calls_total",
			Help: "Tool calls (execute_tool and passthrough tools/call) by domain, tool and outcome: ok, tool_error (the tool's own isError), input_required (a round that ended with questions for the client), cancelled (by its client, before its answer), or the gateway's error code. Calls naming no tool the caller may use count with empty domain and tool.",
		}, []string{"gateway", "domain", "tool", "outcome"})
		metrics.callDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: metricsNamespace, Subsystem: metricsSubsystem, Name: "tool_call_duration_seconds",
			Help:    "How long tool calls took, gateway included, by domain.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"gateway", "domain"})
		metrics.searches = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Subsystem: metricsSubsystem, Name: "searches_total",
			Help: "Ranked discover_tools searches by result: found, weak (the best result covers under half the query's words) or none.",
		}, []string{"gateway", "result"})
		metrics.toolChanges = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Subsystem: metricsSubsystem, Name: "tool_changes_total",
			Help: "Tool definitions an upstream changed after the gateway pinned them, counted once per new definition.",
		}, []string{"gateway", "upstream"})
	})
}

// registerMetrics registers the gateway's collectors in the registry of
// the config being loaded.
func registerMetrics(ctx caddy.Context) error {
	initMetrics()
	registry := ctx.GetMetricsRegistry()
	if registry == nil {
		return nil
	}
	for _, c := range []prometheus.Collector{metrics.calls, metrics.callDuration, metrics.searches, metrics.toolChanges, &metrics.state} {
		if err := registry.Register(c); err != nil {
			var already prometheus.AlreadyRegisteredError
			if !errors.As(err, &already) {
				return err
			}
		}
	}
	return nil
}

// metricsObserver counts one gateway's calls and searches.
type metricsObserver struct{ gateway string }

func (o metricsObserver) ToolCalled(c gateway.CallRecord) {
	metrics.calls.WithLabelValues(o.gateway, c.Domain, c.Tool, c.Outcome).Inc()
	metrics.callDuration.WithLabelValues(o.gateway, c.Domain).Observe(c.Duration.Seconds())
	callSeries.note(o.gateway, toolLabel{c.Domain, c.Tool}, func() map[toolLabel]bool { return catalogTools(o.gateway) })
}

// callSeries are the (domain, tool) pairs tool_calls_total has series
// for, by gateway. An upstream that keeps renaming its tools would add
// series for as long as clients call them: once a gateway's pairs
// outnumber its catalog's tools by seriesSlack, the series of tools no
// longer in its catalog are deleted (their counts start again from zero
// should such a tool come back, which rate() reads as a counter reset).
var callSeries = toolSeries{seen: map[string]map[toolLabel]bool{}}

// seriesSlack is how many pairs past its catalog's tools a gateway's
// tool_calls_total may have before the departed ones are deleted.
const seriesSlack = 64

type toolSeries struct {
	mu   sync.Mutex
	seen map[string]map[toolLabel]bool
}

// toolLabel is a series' domain and tool labels.
type toolLabel struct{ domain, tool string }

// note records that gateway's tool_calls_total has series for label, and
// deletes those of tools catalog (read only then) no longer has once
// there are too many. A catalog of nil (no such gateway live) deletes
// nothing.
func (s *toolSeries) note(gw string, label toolLabel, catalog func() map[toolLabel]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := s.seen[gw]
	if seen == nil {
		seen = map[toolLabel]bool{}
		s.seen[gw] = seen
	}
	if seen[label] {
		return
	}
	seen[label] = true
	tools := catalog()
	if tools == nil || len(seen) <= len(tools)+seriesSlack {
		return
	}
	for l := range seen {
		if !tools[l] {
			metrics.calls.DeletePartialMatch(prometheus.Labels{"gateway": gw, "domain": l.domain, "tool": l.tool})
			delete(seen, l)
		}
	}
}

// catalogTools are the (domain, tool) pairs of the catalog of the live
// gateway named gw, and the empty pair calls naming no tool count under;
// nil when no gateway of that name is live.
func catalogTools(gw string) map[toolLabel]bool {
	for _, f := range liveFrontends() {
		if f.name != gw {
			continue
		}
		tools := map[toolLabel]bool{{}: true}
		if c := f.gw.Catalog(); c != nil {
			for _, d := range c.Domains {
				for _, t := range d.Tools {
					tools[toolLabel{d.Name, t.LocalName}] = true
				}
			}
		}
		return tools
	}
	return nil
}

func (o metricsObserver) Searched(s gateway.SearchRecord) {
	result := "found"
	switch {
	case s.Results == 0:
		result = "none"
	case s.Weak:
		result = "weak"
	}
	metrics.searches.WithLabelValues(o.gateway, result).Inc()
}

var _ gateway.ToolChangeObserver = metricsObserver{}

// ToolChanged counts a tool definition change (gateway.ToolChangeObserver).
func (o metricsObserver) ToolChanged(upstream, _ string) {
	metrics.toolChanges.WithLabelValues(o.gateway, upstream).Inc()
}

// stateCollector reads, at scrape time, the state of every gateway this
// process runs: upstreams, catalog, client sessions.
type stateCollector struct{}

var (
	upstreamUpDesc = prometheus.NewDesc(prometheus.BuildFQName(metricsNamespace, metricsSubsystem, "upstream_up"),
		"Whether an upstream is ready (1) or not: connecting, unavailable or degraded (0).", []string{"gateway", "upstream"}, nil)
	reconnectsDesc = prometheus.NewDesc(prometheus.BuildFQName(metricsNamespace, metricsSubsystem, "upstream_reconnects_total"),
		"Sessions made with an upstream after the first one.", []string{"gateway", "upstream"}, nil)
	catalogDesc = prometheus.NewDesc(prometheus.BuildFQName(metricsNamespace, metricsSubsystem, "catalog_tools"),
		"Tools in the catalog, by domain.", []string{"gateway", "domain"}, nil)
	sessionsDesc = prometheus.NewDesc(prometheus.BuildFQName(metricsNamespace, metricsSubsystem, "client_sessions"),
		"Client sessions open.", []string{"gateway"}, nil)
	changesPendingDesc = prometheus.NewDesc(prometheus.BuildFQName(metricsNamespace, metricsSubsystem, "tool_changes_pending"),
		"Tools whose definition differs from the one pinned, not yet accepted by an operator.", []string{"gateway", "upstream"}, nil)
	heldDesc = prometheus.NewDesc(prometheus.BuildFQName(metricsNamespace, metricsSubsystem, "tools_held"),
		"Changed tools held out of the catalog until an operator accepts them (on_tool_change hold).", []string{"gateway", "upstream"}, nil)
)

func (*stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{upstreamUpDesc, reconnectsDesc, catalogDesc, sessionsDesc, changesPendingDesc, heldDesc} {
		ch <- d
	}
}

func (*stateCollector) Collect(ch chan<- prometheus.Metric) {
	for _, f := range liveFrontends() {
		for _, u := range f.gw.Upstreams() {
			up := 0.0
			if u.State == gateway.StateReady.String() {
				up = 1
			}
			ch <- prometheus.MustNewConstMetric(upstreamUpDesc, prometheus.GaugeValue, up, f.name, u.Name)
			ch <- prometheus.MustNewConstMetric(reconnectsDesc, prometheus.CounterValue, float64(u.Reconnects), f.name, u.Name)
		}
		if c := f.gw.Catalog(); c != nil {
			for _, d := range c.Domains {
				ch <- prometheus.MustNewConstMetric(catalogDesc, prometheus.GaugeValue, float64(len(d.Tools)), f.name, d.Name)
			}
		}
		ch <- prometheus.MustNewConstMetric(sessionsDesc, prometheus.GaugeValue, float64(f.gw.SessionCount()), f.name)
		pending, held := map[string]int{}, map[string]int{}
		for _, c := range f.gw.ToolChanges() {
			pending[c.Upstream]++
			if c.Held {
				held[c.Upstream]++
			}
		}
		for _, u := range f.gw.Upstreams() {
			ch <- prometheus.MustNewConstMetric(changesPendingDesc, prometheus.GaugeValue, float64(pending[u.Name]), f.name, u.Name)
			ch <- prometheus.MustNewConstMetric(heldDesc, prometheus.GaugeValue, float64(held[u.Name]), f.name, u.Name)
		}
	}
}
