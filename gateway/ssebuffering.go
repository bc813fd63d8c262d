package gateway

import (
	"net/http"
	"strings"
)

// unbufferedEvents is a ResponseWriter that, when the response turns out
// to be an event stream, says X-Accel-Buffering: no with it, as the
// 2026-07-28 revision asks of a server opening one: a reverse proxy in
// front (nginx) then passes each event on as it comes rather than holding
// it back in a buffer (progress, a listen stream's notifications). Other
// responses go out as written.
type unbufferedEvents struct {
	w       http.ResponseWriter
	decided bool
}

func (u *unbufferedEvents) Header() http.Header { return u.w.Header() }

func (u *unbufferedEvents) WriteHeader(code int) {
	u.decide()
	u.w.WriteHeader(code)
}

func (u *unbufferedEvents) Write(b []byte) (int, error) {
	u.decide()
	return u.w.Write(b)
}

// Flush flushes what lies underneath, the headers first, through
// http.ResponseController: the writer underneath may flush only through
// its own Unwrap (Caddy's does).
func (u *unbufferedEvents) Flush() {
	u.decide()
	_ = http.NewResponseController(u.w).Flush()
}

// Unwrap lets http.ResponseController reach what lies underneath.
func (u *unbufferedEvents) Unwrap() http.ResponseWriter { return u.w }

// decide adds the header to an event stream's headers before they go.
func (u *unbufferedEvents) decide() {
	if u.decided {
		return
	}
	u.decided = true
	if strings.HasPrefix(u.w.Header().Get("Content-Type"), "text/event-stream") {
		u.w.Header().Set("X-Accel-Buffering", "no")
	}
}
