package gateway

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// jsonAnswer lets the answer to one request go out as a plain JSON body
// when nothing else is sent with it. The SDK's handler answers every
// request with an event stream; jsonAnswer holds the stream's headers
// back until the first event: if that event is the answer itself (a
// JSON-RPC response), it is sent as application/json with its length,
// and the stream's end (a close event, if any) is dropped. If the first
// event is anything else (a progress or log notification, a question to
// the client), the stream goes out as the SDK wrote it, from that event
// on. A response that is not an event stream (an error, a JSON answer)
// passes through untouched.
//
// It is for a POST carrying one request whose client accepts
// application/json; see wantsJSONAnswer.
type jsonAnswer struct {
	w      http.ResponseWriter
	status int
	mode   answerMode
}

type answerMode int

const (
	answerUndecided answerMode = iota
	answerAsJSON               // the answer went out as JSON; later events are dropped
	answerAsIs                 // the response goes out as the SDK writes it
)

// wantsJSONAnswer reports whether r's answer may go out as JSON: a POST of
// one request (not a notification, not a batch), from a client that
// accepts application/json, for any method but subscriptions/listen (a
// stream by nature).
func wantsJSONAnswer(r *http.Request, m message) bool {
	if r.Method != http.MethodPost || !m.read || m.id == nil || m.method == methodListen {
		return false
	}
	for _, v := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
			if mt == "application/json" || mt == "application/*" || mt == "*/*" {
				return true
			}
		}
	}
	return false
}

func (j *jsonAnswer) Header() http.Header { return j.w.Header() }

func (j *jsonAnswer) WriteHeader(code int) {
	if j.mode != answerUndecided {
		j.w.WriteHeader(code)
		return
	}
	if code == http.StatusOK && j.streaming() {
		j.status = code // held until the first event shows what it is
		return
	}
	j.mode = answerAsIs
	j.w.WriteHeader(code)
}

func (j *jsonAnswer) Write(b []byte) (int, error) {
	switch j.mode {
	case answerAsJSON:
		return len(b), nil // the stream's end, after the answer
	case answerAsIs:
		return j.w.Write(b)
	}
	if !j.streaming() {
		j.mode = answerAsIs
		j.commit()
		return j.w.Write(b)
	}
	data, ok := eventData(b)
	if !ok || !isResponse(data) {
		j.mode = answerAsIs
		j.commit()
		return j.w.Write(b)
	}
	j.mode = answerAsJSON
	h := j.w.Header()
	h.Set("Content-Type", "application/json")
	h.Del("Connection")
	h.Set("Content-Length", strconv.Itoa(len(data)))
	j.commit()
	if _, err := j.w.Write(data); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Flush passes on once the response's form is known; before, there is
// nothing the client could use.
func (j *jsonAnswer) Flush() {
	if j.mode == answerAsIs {
		_ = http.NewResponseController(j.w).Flush()
	}
}

// Unwrap lets http.ResponseController reach what lies underneath.
func (j *jsonAnswer) Unwrap() http.ResponseWriter { return j.w }

func (j *jsonAnswer) streaming() bool {
	return strings.HasPrefix(j.w.Header().Get("Content-Type"), "text/event-stream")
}

// commit sends a held status.
func (j *jsonAnswer) commit() {
	if j.status != 0 {
		j.w.WriteHeader(j.status)
		j.status = 0
	}
}

// eventData is the data of b when b is exactly one server-sent event of
// type message (the form the SDK writes an event in, in one Write).
func eventData(b []byte) ([]byte, bool) {
	if !bytes.HasSuffix(b, []byte("\n\n")) {
		return nil, false
	}
	var data []byte
	for line := range bytes.SplitSeq(b[:len(b)-2], []byte("\n")) {
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			if string(value) != "message" {
				return nil, false
			}
		case "id", "retry":
		case "data":
			if data != nil {
				return nil, false // several data lines: not the SDK's form
			}
			data = value
		default:
			return nil, false
		}
	}
	return data, data != nil
}

// isResponse reports whether data is a JSON-RPC response: an object with
// no method (requests and notifications have one).
func isResponse(data []byte) bool {
	var probe struct {
		Method *string `json:"method"`
	}
	return json.Unmarshal(data, &probe) == nil && probe.Method == nil
}
