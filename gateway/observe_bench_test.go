package gateway

import (
	"io"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// BenchmarkToolCallLogLine is the cost of one tool call's log line, as
// Caddy's default JSON log encoder writes it (to nowhere here):
//
//	go test -run '^$' -bench ToolCallLogLine -benchmem ./gateway/
func BenchmarkToolCallLogLine(b *testing.B) {
	core := zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(io.Discard), zap.InfoLevel)
	g := &Gateway{logger: zap.New(core).Named("http.handlers.mcp_gateway")}
	rec := CallRecord{Domain: "memory", Tool: "read_graph", Duration: 1234 * time.Microsecond, Outcome: "ok"}
	b.ReportAllocs()
	for b.Loop() {
		if ce := g.logger.Check(zap.InfoLevel, "tool call"); ce != nil {
			ce.Write(g.callLogFields(nil, rec, nil, nil, false)...)
		}
	}
}
