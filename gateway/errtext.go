package gateway

import (
	"unicode/utf8"

	"go.uber.org/zap"
)

// maxErrorText bounds an upstream's error text in a log line or in a
// message to the model: an upstream's error can quote a whole response
// body, and that body is the upstream's to choose.
const maxErrorText = 2000

// maxEchoedName bounds a name from the caller quoted back in an error.
const maxEchoedName = 120

// boundedText is s cut to maxErrorText bytes, marked with "…" when cut.
func boundedText(s string) string { return cutShort(s, maxErrorText) }

// echoed is a caller's name as quoted back in an error: cut short if long,
// so a hostile argument cannot fill the model's context through the error.
func echoed(name string) string { return cutShort(name, maxEchoedName) }

// cutShort is s if it has at most n bytes, else its first n bytes or fewer
// (never splitting a UTF-8 sequence) and "…".
func cutShort(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// errField logs err like zap.Error, with its text bounded.
func errField(err error) zap.Field {
	if err == nil {
		return zap.Skip()
	}
	return zap.String("error", boundedText(err.Error()))
}
