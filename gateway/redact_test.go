package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestRedactURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://127.0.0.1:9/mcp?api_key=s3cret", "http://127.0.0.1:9/mcp?api_key=REDACTED"},
		{"https://user:pa55@mcp.example.com:8443/v1/mcp?a=1&b=2&a=3#frag", "https://REDACTED@mcp.example.com:8443/v1/mcp?a=REDACTED&b=REDACTED"},
		{"https://token@example.com/mcp", "https://REDACTED@example.com/mcp"},
		{"http://example.com/mcp", "http://example.com/mcp"},
		{"http://example.com/mcp?", "http://example.com/mcp?"},
		{"http://u:p%zz@host/x?k=v", "http://REDACTED@host/REDACTED"},
		{"not a url at all", "not%20a%20url%20at%20all"},
		{"%zz", "REDACTED"},
	} {
		if got := RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRedactorScrubsSecretsAndURLs(t *testing.T) {
	r := newRedactor(&Connection{
		URL:     "http://alice:pa55word-1@127.0.0.1:9/mcp?api_key=k3y-value-1&v=1",
		Headers: http.Header{"Authorization": {"Bearer t0ken-value-1"}, "X-Short": {"abc"}},
	})
	in := `connecting: Post "http://alice:pa55word-1@127.0.0.1:9/mcp?api_key=k3y-value-1&v=1": dial tcp 127.0.0.1:9: connect: connection refused; ` +
		`upstream said: token "Bearer t0ken-value-1" invalid, key k3y-value-1, raw t0ken-value-1, abc stays`
	got := r.text(in)
	for _, secret := range []string{"pa55word-1", "k3y-value-1", "t0ken-value-1", "alice:"} {
		if strings.Contains(got, secret) {
			t.Errorf("%q left in %q", secret, got)
		}
	}
	for _, kept := range []string{"127.0.0.1:9/mcp?api_key=REDACTED&v=REDACTED", "connection refused", "abc stays"} {
		if !strings.Contains(got, kept) {
			t.Errorf("%q missing from %q", kept, got)
		}
	}
	base := fmt.Errorf("wrapped: %w", context.DeadlineExceeded)
	err := r.err(fmt.Errorf("%w (sent k3y-value-1)", base))
	if strings.Contains(err.Error(), "k3y-value-1") || !strings.Contains(err.Error(), "REDACTED") {
		t.Errorf("error not redacted: %v", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Error("redaction broke errors.Is")
	}
	if r.err(nil) != nil {
		t.Error("a nil error became non-nil")
	}
}

// TestRedactorScrubsACallsHeaders: the headers one call adds (per-request
// values, forwarded client headers) are scrubbed from that call's errors,
// and only from that call's: the connection's redactor is unchanged.
func TestRedactorScrubsACallsHeaders(t *testing.T) {
	r := newRedactor(&Connection{Headers: http.Header{"X-Key": {"connection-key-1"}}})
	ctx := context.WithValue(context.Background(), callHeadersKey{}, http.Header{
		"X-Api-Key":     {"sk-live-0123456789abcdef:alice"},
		"Authorization": {"Bearer client-token-42"},
	})
	in := "rejected: key sk-live-0123456789abcdef:alice, token client-token-42, connection-key-1"
	got := r.forCall(ctx).text(in)
	for _, secret := range []string{"sk-live-0123456789abcdef", "client-token-42", "connection-key-1"} {
		if strings.Contains(got, secret) {
			t.Errorf("%q left in %q", secret, got)
		}
	}
	if plain := r.text(in); !strings.Contains(plain, "client-token-42") {
		t.Errorf("the connection's redactor took on a call's headers: %q", plain)
	}
	if r.forCall(context.Background()) != r {
		t.Error("a call without headers of its own got a new redactor")
	}
}

// TestRedactorScrubsAConnectionsSecrets: a connection's Secrets are
// scrubbed wherever they stand, a whole URL (the value of an {env.*} the
// URL was) even when the text quotes it with its query; and a connection
// with other secrets is another connection.
func TestRedactorScrubsAConnectionsSecrets(t *testing.T) {
	const rawURL = "https://mcp.example.com/s/path-key-123/mcp?transport=sse"
	c := Connection{URL: rawURL, Secrets: []string{rawURL}}
	got := newRedactor(&c).text(`Post "` + rawURL + `": dial tcp 10.0.0.1:443: connection refused`)
	if strings.Contains(got, "path-key-123") || !strings.Contains(got, "10.0.0.1:443") {
		t.Errorf("redacted: %q", got)
	}
	other := c
	other.Secrets = []string{"another-key-456"}
	if other.Key() == c.Key() {
		t.Error("connections with other secrets share a key")
	}
}

func TestRedactingLogger(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	r := newRedactor(&Connection{URL: "http://h/mcp?key=s3cret-value"})
	l := r.logger(zap.New(core)).With(zap.String("with", "s3cret-value"))
	l.Warn("failed at http://h/mcp?key=s3cret-value",
		zap.String("s", "s3cret-value"), zap.ByteString("b", []byte("line s3cret-value")),
		zap.Error(fmt.Errorf("e s3cret-value")), zap.Any("any", map[string]string{"k": "s3cret-value"}),
		zap.Stringer("str", stringer("s3cret-value")))
	for _, e := range logs.All() {
		b, _ := json.Marshal(e.ContextMap())
		line := e.Message + string(b)
		if strings.Contains(line, "s3cret") {
			t.Errorf("log line keeps the secret: %s", line)
		}
	}
	if logs.Len() != 1 {
		t.Errorf("%d log lines, want 1", logs.Len())
	}
}

type stringer string

func (s stringer) String() string { return string(s) }

// TestUpstreamErrorsAreRedacted: an upstream whose URL carries a key, with
// nothing listening, and one that answers every request with an error
// quoting the header it got: neither the operator's report, nor the
// logs, nor a call's error shows the secrets.
func TestUpstreamErrorsAreRedacted(t *testing.T) {
	const key, token = "k3y-0123456789", "t0ken-0123456789"
	echoing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"bad token %s"}}`, r.Header.Get("Authorization"))
	}))
	t.Cleanup(echoing.Close)
	core, logs := observer.New(zapcore.DebugLevel)
	cfg := Config{Upstreams: []*UpstreamConfig{
		httpUpstream("dead", "http://127.0.0.1:9/mcp?api_key="+key),
		{Name: "echoing", Connection: Connection{URL: echoing.URL, Headers: http.Header{"Authorization": {"Bearer " + token}}, Timeout: Duration(5 * time.Second)}},
	}}
	ups := make([]*Upstream, len(cfg.Upstreams))
	for i, u := range cfg.Upstreams {
		ups[i] = NewUpstream(u.Connection, UpstreamOptions{Logger: zap.New(core).Named(u.Name), Discovery: true})
	}
	g, err := New(cfg, ups, Options{Logger: zap.New(core)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		g.Close()
		for _, u := range ups {
			u.Close()
		}
	})
	<-g.Started()
	var seen strings.Builder
	for _, r := range g.Upstreams() {
		if r.LastError == "" {
			t.Errorf("upstream %s has no error", r.Name)
		}
		seen.WriteString(r.LastError + "\n")
	}
	_, callErr := ups[0].CallTool(context.Background(), &mcp.CallToolParams{Name: "x"}, nil)
	seen.WriteString(fmt.Sprint(callErr) + "\n")
	for _, e := range logs.All() {
		b, _ := json.Marshal(e.ContextMap())
		seen.WriteString(e.Message + string(b) + "\n")
	}
	for _, secret := range []string{key, token} {
		if strings.Contains(seen.String(), secret) {
			t.Errorf("a secret shows:\n%s", seen.String())
		}
	}
	if !strings.Contains(seen.String(), "127.0.0.1:9/mcp?api_key=REDACTED") {
		t.Errorf("the errors no longer name the address:\n%s", seen.String())
	}
}

// TestConfigErrorsRedactURLs: a config error quoting an upstream URL does
// not quote its credentials, and placeholders may stand in user info.
func TestConfigErrorsRedactURLs(t *testing.T) {
	for _, url := range []string{"ftp://u:s3cret-pass@host/mcp?k=s3cret-key", "http://u:s3cret-pass@ho st/mcp?k=s3cret-key"} {
		err := (&UpstreamConfig{Name: "x", Connection: Connection{URL: url}}).Validate()
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Validate(%q) = %v", url, err)
		}
	}
	ok := &UpstreamConfig{Name: "x", Connection: Connection{URL: "http://gateway:{env.PASSWORD}@127.0.0.1:9/mcp?key={env.KEY}"}}
	if err := ok.Validate(); err != nil {
		t.Errorf("placeholders in user info and query: %v", err)
	}
}
