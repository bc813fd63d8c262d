package gateway

import (
	"context"
	"testing"
	"time"
)

func TestWaitBoundReadyMakesNoContext(t *testing.T) {
	ready := make(chan struct{})
	close(ready)
	w := newWaitBound(context.Background(), time.Minute)
	defer w.release()
	if !w.await(ready) {
		t.Fatal("await of a closed channel = false")
	}
	if w.ctx != nil {
		t.Error("a wait that did not have to wait made a context")
	}
}

func TestWaitBoundEndsAtItsDeadline(t *testing.T) {
	w := newWaitBound(context.Background(), 20*time.Millisecond)
	defer w.release()
	start := time.Now()
	if w.await(make(chan struct{})) {
		t.Fatal("await of a channel never closed = true")
	}
	if waited := time.Since(start); waited < 20*time.Millisecond || waited > 5*time.Second {
		t.Errorf("waited %s for a bound of 20ms", waited)
	}
	if d, ok := w.context().Deadline(); !ok || !d.Equal(w.deadline) {
		t.Errorf("context deadline = %v, %v; want the bound's, %v", d, ok, w.deadline)
	}
}

func TestWaitBoundEndsWithItsParent(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	w := newWaitBound(parent, time.Hour)
	defer w.release()
	cancel()
	if w.await(make(chan struct{})) {
		t.Fatal("await after the parent ended = true")
	}
}
