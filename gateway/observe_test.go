package gateway

import (
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// recordingObserver keeps what it hears.
type recordingObserver struct {
	mu       sync.Mutex
	calls    []CallRecord
	searches []SearchRecord
}

func (o *recordingObserver) ToolCalled(c CallRecord) {
	o.mu.Lock()
	o.calls = append(o.calls, c)
	o.mu.Unlock()
}
func (o *recordingObserver) Searched(s SearchRecord) {
	o.mu.Lock()
	o.searches = append(o.searches, s)
	o.mu.Unlock()
}

func TestCallsAndSearchesAreObservedAndLogged(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	obs := &recordingObserver{}
	tg := startGatewayWith(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("rich", serveHTTP(t, richServer()).URL)}},
		Options{Logger: zap.New(core), Observer: obs})

	tg.call(t, ExecuteToolName, map[string]any{"tool_name": "rich.add", "arguments": map[string]any{"a": 1, "b": 2}})
	tg.call(t, ExecuteToolName, map[string]any{"tool_name": "rich.fail"})
	tg.call(t, ExecuteToolName, map[string]any{"tool_name": "rich.add", "arguments": map[string]any{"a": "x"}})
	tg.call(t, ExecuteToolName, map[string]any{"tool_name": "secret.tool_no_one_has"})
	tg.call(t, DiscoverToolsName, map[string]any{"query": "add integers"})
	tg.call(t, DiscoverToolsName, map[string]any{"query": "zzyzx qwertyuiop"})
	tg.call(t, DiscoverToolsName, map[string]any{"query": "add the weather forecast of tomorrow in paris"})

	want := []CallRecord{
		{Domain: "rich", Tool: "add", Outcome: OutcomeOK},
		{Domain: "rich", Tool: "fail", Outcome: OutcomeToolError},
		{Domain: "rich", Tool: "add", Outcome: string(ErrInvalidArguments)},
		{Outcome: string(ErrUnknownTool)}, // the caller's words never become a label
	}
	if len(obs.calls) != len(want) {
		t.Fatalf("calls = %+v", obs.calls)
	}
	for i, w := range want {
		got := obs.calls[i]
		if got.Domain != w.Domain || got.Tool != w.Tool || got.Outcome != w.Outcome || got.Duration <= 0 {
			t.Errorf("call %d = %+v, want %+v", i, got, w)
		}
	}
	if len(obs.searches) != 3 || obs.searches[0].Results == 0 || obs.searches[0].Weak ||
		obs.searches[1].Results != 0 || !obs.searches[2].Weak {
		t.Errorf("searches = %+v", obs.searches)
	}

	lines := logs.FilterMessage("tool call").All()
	if len(lines) != 4 {
		t.Fatalf("%d tool call log lines, want 4", len(lines))
	}
	fields := lines[0].ContextMap()
	for _, k := range []string{"identity", "domain", "tool", "duration", "outcome"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("the call log line lacks %q: %v", k, fields)
		}
	}
	if _, ok := fields["arguments"]; ok {
		t.Error("argument values are logged without log_values")
	}
	if n := logs.FilterMessage("search found nothing").Len(); n != 1 {
		t.Errorf("%d zero-hit search log lines", n)
	}
	if n := logs.FilterMessage("search found only weak matches").Len(); n != 1 {
		t.Errorf("%d weak-match search log lines", n)
	}
	misses := tg.SearchMisses()
	if len(misses) != 2 || misses[0].Query != "add the weather forecast of tomorrow in paris" || !misses[0].Weak || misses[1].Weak || misses[1].Count != 1 {
		t.Errorf("search misses = %+v", misses)
	}
}

func TestLogValuesAddsArgumentsAndResults(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	tg := startGatewayWith(t, Config{Upstreams: []*UpstreamConfig{httpUpstream("rich", serveHTTP(t, richServer()).URL)}},
		Options{Logger: zap.New(core), LogValues: true})
	tg.call(t, ExecuteToolName, map[string]any{"tool_name": "rich.add", "arguments": map[string]any{"a": 40, "b": 2}})
	fields := logs.FilterMessage("tool call").All()[0].ContextMap()
	if !strings.Contains(fields["arguments"].(string), `"a":40`) || !strings.Contains(fields["result"].(string), "42") {
		t.Errorf("fields = %v", fields)
	}
}
