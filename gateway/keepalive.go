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
func detachedRequest(req *http.Request) (*http.Request, *detachedLifetime) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(req.Context()))
	l := &detachedLifetime{cancel: cancel}
	l.stopAfter = context.AfterFunc(req.Context(), l.callerEnded)
	return req.WithContext(ctx), l
}

// detachedLifetime is the lifetime detachedRequest gives a request: it
// ends when the request's context would have (before the response's
// headers), or streamEndGrace after (once they have arrived), or when the
// response body has been read to the end or closed, whichever is first.
type detachedLifetime struct {
	cancel    context.CancelFunc // ends the detached request
	stopAfter func() bool        // stops callerEnded from running
	mu        sync.Mutex
	answered  bool // the response's headers have arrived
	timer     *time.Timer
	body      releasingBody // the response's body, once there is one
}

// callerEnded runs when the request's original context ends.
func (l *detachedLifetime) callerEnded() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.answered {
		l.cancel()
		return
	}
	l.timer = time.AfterFunc(streamEndGrace, l.cancel)
}

// responded notes that the round trip has returned resp (nil on failure)
// and ties the rest of the lifetime to resp's body: it returns resp with
// a body that ends the lifetime once read to the end or closed, or ends
// the lifetime at once when there is no body.
func (l *detachedLifetime) responded(resp *http.Response) *http.Response {
	l.mu.Lock()
	l.answered = true
	l.mu.Unlock()
	if resp == nil || resp.Body == nil {
		l.release()
		return resp
	}
	l.body.ReadCloser, l.body.lifetime = resp.Body, l
	resp.Body = &l.body
	return resp
}

// release ends the lifetime now.
func (l *detachedLifetime) release() {
	if !l.stopAfter() {
		l.mu.Lock()
		if l.timer != nil {
			l.timer.Stop()
		}
		l.mu.Unlock()
	}
	l.cancel()
}

// releasingBody releases its request's lifetime once read to the end or
// closed. After the end has been read, net/http has already kept the
// connection for reuse, so the cancellation that follows does not touch
// it.
type releasingBody struct {
	io.ReadCloser
	once     sync.Once
	lifetime *detachedLifetime
}

func (b *releasingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.once.Do(b.lifetime.release)
	}
	return n, err
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.lifetime.release)
	return err
}
