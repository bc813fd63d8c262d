package gateway

import (
	"context"
	"sync"
)

// callSlots bound the calls in flight on one upstream connection: in all
// (MaxConcurrentCalls), and per caller identity (a share of them), so that
// one caller's slow calls cannot take every slot and starve the others. A
// call over either bound waits, within its timeout, for a slot to free.
type callSlots struct {
	all         chan struct{}
	perIdentity int

	mu    sync.Mutex
	mine  map[string]chan struct{} // by identity, while it has calls in flight or waiting
	users map[string]int           // calls in flight or waiting, by identity
}

// newCallSlots returns the slots of a connection with max calls in all
// and perIdentity for one identity (0: max's default share, see
// DefaultCallShare); nil when max is 0 (no limit).
func newCallSlots(max, perIdentity int) *callSlots {
	if max <= 0 {
		return nil
	}
	if perIdentity <= 0 || perIdentity > max {
		perIdentity = DefaultCallShare(max)
	}
	return &callSlots{all: make(chan struct{}, max), perIdentity: perIdentity, mine: map[string]chan struct{}{}, users: map[string]int{}}
}

// DefaultCallShare is how many of max concurrent calls one caller identity
// may have in flight when the config does not say: half, rounded up.
func DefaultCallShare(max int) int { return (max + 1) / 2 }

// slotIdentityKey carries, in a call's context, the identity its slot
// share counts against.
type slotIdentityKey struct{}

// withSlotIdentity returns ctx whose calls count against identity's share
// of each upstream's slots. A caller without an identity of its own (no
// user) is not held to a share: every anonymous caller would otherwise
// share one.
func withSlotIdentity(ctx context.Context, c Caller) context.Context {
	if c.User == "" {
		return ctx
	}
	return context.WithValue(ctx, slotIdentityKey{}, c.Identity())
}

// acquire waits for a slot for a call made with ctx and returns the
// function that frees it, or a *BusyError when ctx ends first.
func (s *callSlots) acquire(ctx context.Context) (release func(), err error) {
	if s == nil {
		return func() {}, nil
	}
	identity, _ := ctx.Value(slotIdentityKey{}).(string)
	var own chan struct{}
	if identity != "" {
		s.mu.Lock()
		own = s.mine[identity]
		if own == nil {
			own = make(chan struct{}, s.perIdentity)
			s.mine[identity] = own
		}
		s.users[identity]++
		s.mu.Unlock()
		select {
		case own <- struct{}{}:
		case <-ctx.Done():
			s.leave(identity)
			return nil, &BusyError{Limit: s.perIdentity, PerIdentity: true}
		}
	}
	select {
	case s.all <- struct{}{}:
	case <-ctx.Done():
		if own != nil {
			<-own
			s.leave(identity)
		}
		return nil, &BusyError{Limit: cap(s.all)}
	}
	return func() {
		<-s.all
		if own != nil {
			<-own
			s.leave(identity)
		}
	}, nil
}

// leave forgets one call of identity's, and the identity once it has none.
func (s *callSlots) leave(identity string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users[identity]--; s.users[identity] <= 0 {
		delete(s.users, identity)
		delete(s.mine, identity)
	}
}
