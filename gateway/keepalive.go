package gateway

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"
)

// streamEndGrace is how long an upstream's answer stream may still be
// read after the call that sent it has ended: long enough for the last
// chunk of an event stream that has already delivered its answer, short
// enough that an abandoned request does not hold a connection for long.
const streamEndGrace = 2 * time.Second

// detachedRequest gives req a lifetime of its own once its response has
// begun: if req's context ends before the response's headers arrive, the
// request is cancelled at once (a call that times out fails on time);
// after, it goes on for streamEndGrace, and is cancelled then, or as soon
// as its response body has been read to the end or closed.
//
// The SDK sends each call with the call's context and reads the answer's
// event stream in the background; the caller cancels that context as
// soon as the answer has arrived, while the stream's final chunk may
// still be unread. Cut off there, net/http would drop the connection and
// the next call would dial again. Cancellation of a call still reaches
// the upstream, as the protocol says, with notifications/cancelled.
func detachedRequest(req *http.Request) (*http.Request, func(*http.Response) *http.Response) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(req.Context()))
	var (
		mu       sync.Mutex
		answered bool // the response's headers have arrived
		timer    *time.Timer
	)
	stopAfter := context.AfterFunc(req.Context(), func() {
		mu.Lock()
		defer mu.Unlock()
		if !answered {
			cancel()
			return
		}
		timer = time.AfterFunc(streamEndGrace, cancel)
	})
	release := func() {
		if !stopAfter() {
			mu.Lock()
			if timer != nil {
				timer.Stop()
			}
			mu.Unlock()
		}
		cancel()
	}
	wrap := func(resp *http.Response) *http.Response {
		mu.Lock()
		answered = true
		mu.Unlock()
		if resp == nil || resp.Body == nil {
			release()
			return resp
		}
		resp.Body = &releasingBody{ReadCloser: resp.Body, release: release}
		return resp
	}
	return req.WithContext(ctx), wrap
}

// releasingBody releases its request's lifetime once read to the end or
// closed. After the end has been read, net/http has already kept the
// connection for reuse, so the cancellation that follows does not touch
// it.
type releasingBody struct {
	io.ReadCloser
	once    sync.Once
	release func()
}

func (b *releasingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.once.Do(b.release)
	}
	return n, err
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.release)
	return err
}
