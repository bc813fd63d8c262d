package gateway

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestNotificationCounting(t *testing.T) {
	stdio := strings.Join([]string{
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"a"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
		`{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"notifications/message"}]}}`,
		`not json`,
		``,
	}, "\n")
	n := 0
	// One byte at a time: lines split across reads must still count once.
	r := &lineNotes{r: io.NopCloser(iotest.OneByteReader(strings.NewReader(stdio))), count: func() { n++ }}
	if _, err := io.ReadAll(r); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("stdio: counted %d notifications, want 2 (message, progress; not cancelled, requests or results)", n)
	}

	sse := "event: message\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\r\ndata: \"params\":{\"data\":\"x\"}}\n\n" +
		": comment\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n"
	n = 0
	s := &sseNotes{r: io.NopCloser(iotest.HalfReader(strings.NewReader(sse))), count: func() { n++ }}
	if _, err := io.ReadAll(s); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("SSE: counted %d notifications, want 2 (one split over two data lines)", n)
	}
}

func TestIsCountedNotification(t *testing.T) {
	for msg, want := range map[string]bool{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`:  true,
		`{"jsonrpc":"2.0","method":"notifications\/message","params":{}}`:  true,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}`: false,
		`{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage"}`:       false,
		`{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`:                 false,
		`{"jsonrpc":"2.0","id":3,"result":{"text":"notifications/x"}}`:     false,
	} {
		if got := isCountedNotification([]byte(msg)); got != want {
			t.Errorf("isCountedNotification(%s) = %v, want %v", msg, got, want)
		}
	}
}
