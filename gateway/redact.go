package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Redacted replaces a secret wherever the gateway shows or logs text that
// could hold one.
const Redacted = "REDACTED"

// RedactURL is raw as an operator may see it: scheme, host, port and path
// as they are; the user info and every query value replaced by REDACTED
// (the query's keys stay, so "?api_key=REDACTED" still says what was
// there); no fragment. Text that does not parse as a URL is cut to its
// scheme and host, or to nothing.
//
// Every URL of an upstream that reaches an error, a log line, a metric,
// the admin API or the operator page goes through it: a URL's query and
// user info are where credentials go when an upstream takes no header.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		scheme, rest, ok := strings.Cut(raw, "://")
		if !ok {
			return Redacted
		}
		host, _, _ := strings.Cut(rest, "/")
		if _, after, ok := strings.Cut(host, "@"); ok {
			host = Redacted + "@" + after
		}
		host, _, _ = strings.Cut(host, "?")
		return scheme + "://" + host + "/" + Redacted
	}
	if u.User != nil {
		u.User = url.User(Redacted)
	}
	if u.RawQuery != "" {
		q := u.Query()
		parts := make([]string, 0, len(q))
		for _, k := range slices.Sorted(maps.Keys(q)) {
			parts = append(parts, url.QueryEscape(k)+"="+Redacted)
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// urlInText finds URLs in free text (an error's message quotes the URL
// it failed on, as net/url does: Post "http://host/mcp?key=...": ...).
var urlInText = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]{1,15}://[^\s"'<>` + "`" + `]+`)

// minScrubbedSecret is the shortest configured value scrubbed from text
// by value: shorter ones ("1", "yes") would mangle ordinary words.
const minScrubbedSecret = 6

// A redactor removes one upstream connection's secrets from text: every
// configured secret value (the URL's user info and query values, header
// values, a header value's credential after its scheme, "Bearer <token>",
// a stdio upstream's environment values but absolute paths, and the
// connection's Secrets) is replaced by REDACTED wherever it appears, as an
// upstream's error message may quote what it was sent; then every URL
// left in the text is redacted (RedactURL).
type redactor struct {
	secrets []string // longest first, so a value containing another goes whole
}

// newRedactor gathers c's secrets.
func newRedactor(c *Connection) *redactor {
	var secrets secretValues
	if u, err := url.Parse(c.URL); err == nil {
		if u.User != nil {
			// A user name alone is the credential of https://token@host.
			if p, ok := u.User.Password(); ok {
				secrets.add(p)
			} else {
				secrets.add(u.User.Username())
			}
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				secrets.add(v)
			}
		}
	}
	secrets.addHeaders(c.Headers)
	// A stdio server's credentials come in its environment.
	for _, v := range c.Env {
		if !IsFilePath(v) {
			secrets.add(v)
		}
	}
	for _, v := range c.Secrets {
		secrets.add(v)
	}
	return secrets.redactor()
}

// IsFilePath reports whether v reads as an absolute file path (a data
// file's, a key file's location): no credential, and what a server's
// errors name, so it stays readable in them.
func IsFilePath(v string) bool {
	return strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \t\n")
}

// forCall is r with the values of the headers ctx's call sends besides
// the connection's own (callContext: per-request header values, which
// hold the operator's secrets beside a placeholder, and the client
// headers the upstream forwards) scrubbed too: an upstream's error may
// quote them as it may quote the connection's.
func (r *redactor) forCall(ctx context.Context) *redactor {
	h, ok := ctx.Value(callHeadersKey{}).(http.Header)
	if !ok {
		return r
	}
	secrets := secretValues(slices.Clone(r.secrets))
	secrets.addHeaders(h)
	if len(secrets) == len(r.secrets) {
		return r
	}
	return secrets.redactor()
}

// secretValues are the values a redactor scrubs.
type secretValues []string

// add adds secret s, and its query-escaped form, if it is long enough to
// scrub (minScrubbedSecret).
func (s *secretValues) add(v string) {
	if len(v) >= minScrubbedSecret && !slices.Contains(*s, v) {
		*s = append(*s, v)
		if e := url.QueryEscape(v); e != v {
			*s = append(*s, e)
		}
	}
}

// addHeaders adds every value of h, and each value's credential after its
// scheme ("Bearer <token>").
func (s *secretValues) addHeaders(h http.Header) {
	for _, vs := range h {
		for _, v := range vs {
			s.add(v)
			if _, cred, ok := strings.Cut(v, " "); ok {
				s.add(strings.TrimSpace(cred))
			}
		}
	}
}

// redactor is the redactor of s, longest value first.
func (s secretValues) redactor() *redactor {
	slices.SortFunc(s, func(a, b string) int { return len(b) - len(a) })
	return &redactor{secrets: s}
}

// text is s with the connection's secrets replaced and URLs redacted. The
// secrets go first: a secret that is a whole URL is found as it was
// configured, before RedactURL rewrites its query.
func (r *redactor) text(s string) string {
	return urlInText.ReplaceAllStringFunc(r.scrubSecrets(s), RedactURL)
}

// scrubSecrets is s with every secret value r knows replaced by REDACTED,
// and its URLs otherwise as they are: for text a user is to follow (an
// upstream's URL elicitation), whose URL's query RedactURL would break,
// but which must not hand the caller the gateway's own credentials.
func (r *redactor) scrubSecrets(s string) string {
	for _, secret := range r.secrets {
		s = strings.ReplaceAll(s, secret, Redacted)
	}
	return s
}

// err is err with its message redacted (nil stays nil). errors.Is and
// errors.As still see the original: only its text changes.
func (r *redactor) err(err error) error {
	if err == nil {
		return nil
	}
	if _, done := err.(*redactedError); done {
		return err
	}
	red := &redactedError{msg: r.text(err.Error()), err: err}
	if wire := answeredError(err); wire != nil {
		answer := *wire
		answer.Message = r.text(wire.Message)
		answer.Data = nil
		redactData := r.text
		if wire.Code == mcp.CodeURLElicitationRequired {
			// The pages its user is to open: their URLs must work, query
			// and all, but never hand over the connection's secrets.
			redactData = r.scrubSecrets
		}
		if data := redactData(string(wire.Data)); json.Valid([]byte(data)) {
			answer.Data = json.RawMessage(data)
		}
		red.answer = &answer
	}
	return red
}

// redactedError is an error whose message has been redacted, and, if the
// error holds a JSON-RPC error the upstream answered with, a redacted copy
// of that answer, which answeredError finds before the original.
type redactedError struct {
	msg    string
	err    error
	answer *jsonrpc.Error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// logger is l with every message and field it writes redacted: the
// connection's logs (its errors, a stdio server's stderr, its log
// messages) can never print its secrets.
func (r *redactor) logger(l *zap.Logger) *zap.Logger {
	return l.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return &redactingCore{Core: c, r: r} }))
}

// redactingCore redacts entries and fields on their way to its Core.
type redactingCore struct {
	zapcore.Core
	r *redactor
}

func (c *redactingCore) With(fields []zapcore.Field) zapcore.Core {
	return &redactingCore{Core: c.Core.With(c.r.fields(fields)), r: c.r}
}

func (c *redactingCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *redactingCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	e.Message = c.r.text(e.Message)
	return c.Core.Write(e, c.r.fields(fields))
}

// fields redacts what a field can carry as text: strings, byte strings,
// errors, Stringers and reflected values (as their JSON).
func (r *redactor) fields(fields []zapcore.Field) []zapcore.Field {
	out := make([]zapcore.Field, len(fields))
	for i, f := range fields {
		switch f.Type {
		case zapcore.StringType:
			f.String = r.text(f.String)
		case zapcore.ByteStringType:
			f = zap.String(f.Key, r.text(string(f.Interface.([]byte))))
		case zapcore.ErrorType:
			if err, ok := f.Interface.(error); ok {
				f = zap.String(f.Key, r.text(err.Error()))
			}
		case zapcore.StringerType:
			if s, ok := f.Interface.(fmt.Stringer); ok {
				f = zap.String(f.Key, r.text(s.String()))
			}
		case zapcore.ReflectType:
			b, err := json.Marshal(f.Interface)
			if err != nil {
				b = []byte(fmt.Sprint(f.Interface))
			}
			f = zap.String(f.Key, r.text(string(b)))
		}
		out[i] = f
	}
	return out
}
