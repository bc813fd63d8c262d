package gateway

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Notifications to a client never wait for that client.
//
// An upstream's notifications are handled one at a time, in order, by its
// connection, and a shared connection's handler serves every client.
// Writing to a client's stream blocks while the client does not read it,
// so were the handler to write, one client that stopped reading would
// stop every other client's progress, resource updates and list changes
// from that upstream (and the SDK's list_changed broadcast, which writes
// to one session after another, would stop too). The notifications the
// gateway sends clients are therefore queued per client session, and
// written, in order, by a goroutine of that session's own while it has
// any. A session's queue holds
// maxQueuedNotifications: past that, a notification replaces the queued
// one it supersedes (the same call's progress, the same resource's
// update, the same list's change), or, with none, is dropped (a client
// that far behind is not reading).
//
// Before the gateway answers a client's request, it waits, for at most
// maxAnswerWait, until the notifications queued for that client so far
// are written: a call's progress still reaches the client before the
// call's answer.

// queuedNotifications are the notifications that go through a client's
// queue: those the gateway passes on from upstreams, and list changes.
var queuedNotifications = map[string]bool{
	"notifications/progress":               true,
	"notifications/message":                true,
	"notifications/resources/updated":      true,
	"notifications/tools/list_changed":     true,
	"notifications/resources/list_changed": true,
	"notifications/prompts/list_changed":   true,
}

// maxQueuedNotifications bounds a client session's queue.
const maxQueuedNotifications = 64

// maxAnswerWait bounds how long an answer waits for the notifications
// queued before it.
const maxAnswerWait = time.Second

// notificationQueues are the client sessions' queues of notifications
// waiting to be written.
type notificationQueues struct {
	mu        sync.Mutex
	bySession map[*mcp.ServerSession][]queuedNotification // a session has one while its writer runs
}

// queuedNotification is one notification waiting to be written (or a
// mark a waiting answer set, which send closes).
type queuedNotification struct {
	supersedes string // what a later one with the same key replaces; "" for nothing
	send       func()
}

// queue is server sending middleware: the notifications above are queued
// for their session's writer, not written.
func (q *notificationQueues) queue(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, _ := req.GetSession().(*mcp.ServerSession)
		if ss == nil || !queuedNotifications[method] {
			return next(ctx, method, req)
		}
		// The writer sends in the notification's context, values and all
		// (the call it belongs to), but after its sender has moved on.
		ctx = context.WithoutCancel(ctx)
		q.push(ss, queuedNotification{
			supersedes: supersedeKey(method, req.GetParams()),
			send:       func() { _, _ = next(ctx, method, req) },
		})
		return nil, nil
	}
}

// answerAfterQueued is server receiving middleware: a request's answer
// waits (for at most maxAnswerWait) until the notifications queued for
// its session before it was answered are written.
func (q *notificationQueues) answerAfterQueued(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && !strings.HasPrefix(method, "notifications/") {
			q.waitWritten(ctx, ss)
		}
		return res, err
	}
}

// push queues n for ss, starting its writer if it has none.
func (q *notificationQueues) push(ss *mcp.ServerSession, n queuedNotification) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.bySession == nil {
		q.bySession = make(map[*mcp.ServerSession][]queuedNotification)
	}
	pending, running := q.bySession[ss]
	if len(pending) >= maxQueuedNotifications {
		for i := len(pending) - 1; i >= 0; i-- {
			if n.supersedes != "" && pending[i].supersedes == n.supersedes {
				pending[i] = n
				return
			}
		}
		return
	}
	q.bySession[ss] = append(pending, n)
	if !running {
		go q.write(ss)
	}
}

// write is a session's writer: it sends the session's queued
// notifications in order, and ends when there are none left.
func (q *notificationQueues) write(ss *mcp.ServerSession) {
	for {
		q.mu.Lock()
		pending := q.bySession[ss]
		if len(pending) == 0 {
			delete(q.bySession, ss)
			q.mu.Unlock()
			return
		}
		n := pending[0]
		pending[0] = queuedNotification{}
		q.bySession[ss] = pending[1:]
		q.mu.Unlock()
		n.send()
	}
}

// waitWritten waits until the notifications queued for ss so far are
// written, for at most maxAnswerWait, or until ctx ends.
func (q *notificationQueues) waitWritten(ctx context.Context, ss *mcp.ServerSession) {
	q.mu.Lock()
	pending, running := q.bySession[ss]
	if !running {
		q.mu.Unlock()
		return
	}
	// Past any bound: one mark per answer waiting.
	written := make(chan struct{})
	q.bySession[ss] = append(pending, queuedNotification{send: func() { close(written) }})
	q.mu.Unlock()
	timer := time.NewTimer(maxAnswerWait)
	defer timer.Stop()
	select {
	case <-written:
	case <-timer.C:
	case <-ctx.Done():
	}
}

// supersedeKey is what a notification replaces in a full queue (see
// queuedNotification): the progress of the same token, the update of the
// same resource, the change of the same list, each on the same listen
// stream (SEP-2575) if it came on one; "" for a log message, which
// replaces nothing.
func supersedeKey(method string, params mcp.Params) string {
	var what string
	var meta mcp.Meta
	switch p := params.(type) {
	case *mcp.ProgressNotificationParams:
		what, meta = progressKey(p.ProgressToken), p.Meta
	case *mcp.ResourceUpdatedNotificationParams:
		what, meta = p.URI, p.Meta
	case *mcp.ToolListChangedParams:
		meta = p.Meta
	case *mcp.ResourceListChangedParams:
		meta = p.Meta
	case *mcp.PromptListChangedParams:
		meta = p.Meta
	default:
		return ""
	}
	return method + " " + what + " " + progressKey(meta[mcp.MetaKeySubscriptionID])
}
