package gateway

import (
	"context"
	"time"
)

// waitBound bounds the waiting a call does before it is sent (for its
// upstream's first connection, for a call slot) by a deadline fixed when
// the call began. Its context, the parent's with that deadline, is made
// only when something has to wait: a call that finds its upstream ready
// and unbounded pays for no timer.
type waitBound struct {
	parent   context.Context
	deadline time.Time
	ctx      context.Context
	cancel   context.CancelFunc
}

// newWaitBound bounds waiting under parent to timeout from now.
func newWaitBound(parent context.Context, timeout time.Duration) waitBound {
	return waitBound{parent: parent, deadline: time.Now().Add(timeout)}
}

// context is the parent with the bound's deadline, made on first use.
func (w *waitBound) context() context.Context {
	if w.ctx == nil {
		w.ctx, w.cancel = context.WithDeadline(w.parent, w.deadline)
	}
	return w.ctx
}

// await reports whether ready is closed, waiting for it within the bound:
// false when the bound's context ends first.
func (w *waitBound) await(ready <-chan struct{}) bool {
	select {
	case <-ready:
		return true
	default:
	}
	select {
	case <-ready:
		return true
	case <-w.context().Done():
		return false
	}
}

// release frees the bound's timer, if it made one.
func (w *waitBound) release() {
	if w.cancel != nil {
		w.cancel()
	}
}
