package gateway

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	ok := func() *UpstreamConfig {
		return &UpstreamConfig{Name: "crm", Connection: Connection{URL: "https://crm.internal/mcp"}}
	}
	for _, tc := range []struct {
		name   string
		change func(*UpstreamConfig)
		want   string // "" means valid
	}{
		{"http", func(*UpstreamConfig) {}, ""},
		{"stdio", func(u *UpstreamConfig) { u.URL, u.Command, u.Args = "", "npx", []string{"-y", "x"} }, ""},
		{"sse", func(u *UpstreamConfig) { u.Transport = TransportSSE }, ""},
		{"no name", func(u *UpstreamConfig) { u.Name = "" }, "needs a name"},
		{"bad name", func(u *UpstreamConfig) { u.Name = "my crm" }, "1-32 letters"},
		{"dotted name", func(u *UpstreamConfig) { u.Name = "a.b" }, "1-32 letters"},
		{"neither", func(u *UpstreamConfig) { u.URL = "" }, "needs either a `url`"},
		{"both", func(u *UpstreamConfig) { u.Command = "x" }, "both a `url` and a `command`"},
		{"relative url", func(u *UpstreamConfig) { u.URL = "crm/mcp" }, "absolute http"},
		{"bad transport", func(u *UpstreamConfig) { u.Transport = "websocket" }, "unknown transport"},
		{"stdio transport with url", func(u *UpstreamConfig) { u.Transport = TransportStdio }, "needs a `command`"},
		{"sse with command", func(u *UpstreamConfig) { u.URL, u.Command, u.Transport = "", "x", TransportSSE }, "needs a `url`"},
		{"env on http", func(u *UpstreamConfig) { u.Env = map[string]string{"A": "b"} }, "stdio upstreams"},
		{"header on stdio", func(u *UpstreamConfig) { u.URL, u.Command, u.Headers = "", "x", http.Header{"A": {"b"}} }, "HTTP upstreams"},
		{"bad glob", func(u *UpstreamConfig) { u.Allow = []string{"crm_["} }, "bad glob"},
		{"group without globs", func(u *UpstreamConfig) { u.Groups = []GroupRule{{Name: "people"}} }, "at least one"},
		{"empty override", func(u *UpstreamConfig) { u.Tools = map[string]ToolOverride{"x": {}} }, "sets nothing"},
		{"negative timeout", func(u *UpstreamConfig) { u.Timeout = -1 }, "positive"},
		{"per-identity share", func(u *UpstreamConfig) { u.MaxConcurrentCalls, u.MaxConcurrentCallsPerIdentity = 4, 4 }, ""},
		{"per-identity share over the total", func(u *UpstreamConfig) { u.MaxConcurrentCalls, u.MaxConcurrentCallsPerIdentity = 2, 4 }, "would bound nothing"},
		{"client sessions per client", func(u *UpstreamConfig) { u.Session, u.MaxClientSessions = SessionPerClient, 10 }, ""},
		{"client sessions of a shared session", func(u *UpstreamConfig) { u.MaxClientSessions = 10 }, "add `session per_client` or remove max_client_sessions"},
		{"client sessions off, shared", func(u *UpstreamConfig) { u.MaxClientSessions = -1 }, "add `session per_client`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := ok()
			tc.change(u)
			err := (&Config{Upstreams: []*UpstreamConfig{u}}).Validate()
			wantError(t, "", err, tc.want)
		})
	}
	dup := &Config{Upstreams: []*UpstreamConfig{ok(), ok()}}
	dup.Upstreams[1].Name = "CRM"
	if err := dup.Validate(); err == nil || !strings.Contains(err.Error(), "used twice") {
		t.Errorf("duplicate names: %v", err)
	}
}

func TestDurationJSON(t *testing.T) {
	var c Connection
	if err := json.Unmarshal([]byte(`{"timeout":"1m30s"}`), &c); err != nil || time.Duration(c.Timeout) != 90*time.Second {
		t.Errorf("string duration: %v %v", c.Timeout, err)
	}
	if err := json.Unmarshal([]byte(`{"timeout":5000000000}`), &c); err != nil || time.Duration(c.Timeout) != 5*time.Second {
		t.Errorf("integer duration: %v %v", c.Timeout, err)
	}
	if err := json.Unmarshal([]byte(`{"timeout":"soon"}`), &c); err == nil {
		t.Error("a bad duration is accepted")
	}
}

func TestConnectionKeyIgnoresCatalogSettings(t *testing.T) {
	a := &UpstreamConfig{Name: "a", Connection: Connection{URL: "http://x/mcp", Headers: http.Header{"Authorization": {"Bearer t"}}}}
	b := *a
	b.Name, b.Deny, b.Description = "b", []string{"*_delete"}, "other"
	if a.Key() != b.Key() {
		t.Error("catalog settings change the connection key: a reload would reconnect for nothing")
	}
	c := *a
	c.Headers = http.Header{"Authorization": {"Bearer u"}}
	if a.Key() == c.Key() {
		t.Error("a changed header keeps the old connection")
	}
	if strings.Contains(a.Key(), "Bearer") {
		t.Error("the key holds a secret")
	}
}
