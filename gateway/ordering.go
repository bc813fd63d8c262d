package gateway

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
)

// Keeping a call's notifications ahead of its answer.
//
// An upstream sends a call's progress and log notifications before the
// call's answer, and the client must get them in that order too. The SDK
// hands the answer to the caller as soon as it reads it, but queues
// notifications for a handler goroutine, so the answer can overtake them.
// The gateway therefore counts notifications twice: as their bytes are
// read off the connection (before the SDK sees them), and as their
// handling ends (client middleware). A call that has its answer waits
// until every notification read so far has been handled (Upstream.settle).

// isCountedNotification reports whether a JSON-RPC message is a
// notification both counts include: every notification but
// notifications/cancelled, which the SDK handles on its read path.
func isCountedNotification(msg []byte) bool {
	// Every counted method begins "notifications/" (which JSON may write
	// "notifications\/"): a message without the word (a call's answer,
	// most of what flows) is not decoded.
	if !bytes.Contains(msg, notificationWord) {
		return false
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return false
	}
	return len(m.ID) == 0 && isCountedMethod(m.Method)
}

var notificationWord = []byte("notifications")

func isCountedMethod(method string) bool {
	return strings.HasPrefix(method, "notifications/") && method != "notifications/cancelled"
}

// maxCountedMessage bounds how much of one message is kept to classify it;
// a longer message is classified by its beginning.
const maxCountedMessage = 1 << 20

// lineNotes counts the notifications in a newline-delimited JSON-RPC
// stream (stdio) as it is read.
type lineNotes struct {
	r     io.ReadCloser
	count func()
	line  []byte
}

func (l *lineNotes) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for chunk := p[:n]; len(chunk) > 0; {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			l.line = appendBounded(l.line, chunk)
			break
		}
		l.line = appendBounded(l.line, chunk[:i])
		if isCountedNotification(l.line) {
			l.count()
		}
		l.line = l.line[:0]
		chunk = chunk[i+1:]
	}
	return n, err
}

func (l *lineNotes) Close() error { return l.r.Close() }

// sseNotes counts the notifications in a server-sent event stream (the
// streamable HTTP and legacy SSE transports) as it is read.
type sseNotes struct {
	r     io.ReadCloser
	count func()
	line  []byte
	data  []byte
}

func (s *sseNotes) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	for chunk := p[:n]; len(chunk) > 0; {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			s.line = appendBounded(s.line, chunk)
			break
		}
		s.line = appendBounded(s.line, chunk[:i])
		s.endLine()
		chunk = chunk[i+1:]
	}
	return n, err
}

// endLine handles one line of the event stream: data lines accumulate,
// a blank line ends the event.
func (s *sseNotes) endLine() {
	line := bytes.TrimSuffix(s.line, []byte("\r"))
	switch {
	case len(line) == 0:
		if len(s.data) > 0 && isCountedNotification(s.data) {
			s.count()
		}
		s.data = s.data[:0]
	case bytes.HasPrefix(line, []byte("data:")):
		if len(s.data) > 0 {
			s.data = append(s.data, '\n')
		}
		s.data = appendBounded(s.data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" ")))
	}
	s.line = s.line[:0]
}

func (s *sseNotes) Close() error { return s.r.Close() }

func appendBounded(dst, src []byte) []byte {
	if room := maxCountedMessage - len(dst); room < len(src) {
		src = src[:max(room, 0)]
	}
	return append(dst, src...)
}
