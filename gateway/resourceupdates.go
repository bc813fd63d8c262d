package gateway

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource updates. An upstream's notifications/resources/updated reaches
// the clients that subscribed to that URI through that upstream, and no
// one else: from a domain's shared upstream session, the subscribers each
// view counts for the domain (countSubscriber); from a client's own
// upstream session (per_client), that client, if it subscribed there. An
// update nobody subscribed to goes no further (the SDK would log each one
// it is handed).
//
// The SDK sends an update to every session of a server subscribed to the
// URI; a client's own updates are marked (ownUpdates) for the server's
// sending middleware, updatesItShows, to hold back from the others, as it
// holds back updates of a resource the view no longer shows.

// sharedResourceUpdated is what an update from domain's shared upstream
// session does: every view with subscribers to the URI through domain,
// that shows it as domain's, tells them.
func (g *Gateway) sharedResourceUpdated(domain string) func(*mcp.ResourceUpdatedNotificationParams) {
	return func(p *mcp.ResourceUpdatedNotificationParams) {
		for _, v := range g.allViews() {
			if owner, shown := v.resourceDomain(p.URI); !shown || owner != domain || v.subscribers(domain, p.URI) == 0 {
				continue
			}
			for _, srv := range v.allServers() {
				_ = srv.ResourceUpdated(context.Background(), p)
			}
		}
	}
}

// ownResourceUpdated is what an update from ss's own upstream session of
// domain does: ss hears of it if it subscribed to the URI there.
func (g *Gateway) ownResourceUpdated(ss *mcp.ServerSession, st *clientState, domain string) func(*mcp.ResourceUpdatedNotificationParams) {
	return func(p *mcp.ResourceUpdatedNotificationParams) {
		st.mu.Lock()
		cu := st.upstreams[domain]
		subscribed := cu != nil && cu.subscribed[p.URI]
		st.mu.Unlock()
		if !subscribed {
			return
		}
		own := *p // a pointer of this delivery's own, to mark it by
		g.ownUpdates.Store(&own, ss)
		defer g.ownUpdates.Delete(&own)
		for _, v := range g.allViews() {
			for _, srv := range v.allServers() {
				_ = srv.ResourceUpdated(context.Background(), &own)
			}
		}
	}
}

// updatesItShows is sending middleware for a view's server: a resource
// update reaches a client only if the view shows the resource now (an
// operator may have hidden it since the client subscribed), and one
// marked as one client's (ownUpdates) only that client.
func (v *view) updatesItShows(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "notifications/resources/updated" {
			if p, ok := req.GetParams().(*mcp.ResourceUpdatedNotificationParams); ok {
				if _, shown := v.resourceDomain(p.URI); !shown {
					return nil, nil
				}
				if only, marked := v.g.ownUpdates.Load(p); marked && req.GetSession() != only {
					return nil, nil
				}
			}
		}
		return next(ctx, method, req)
	}
}

// noteOwnSubscription records that the client of req subscribed to
// (subscribed) or unsubscribed from uri on u, its own upstream session of
// domain.
func (g *Gateway) noteOwnSubscription(req mcp.Request, u *Upstream, domain, uri string, subscribed bool) {
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if ss == nil {
		return
	}
	st := g.clientState(ss)
	if st == nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	cu := st.upstreams[domain]
	if cu == nil || cu.upstream != u {
		return
	}
	if !subscribed {
		delete(cu.subscribed, uri)
		return
	}
	if cu.subscribed == nil {
		cu.subscribed = map[string]bool{}
	}
	cu.subscribed[uri] = true
}

// subscribers is the number of clients of v subscribed to uri through
// domain's shared upstream session.
func (v *view) subscribers(domain, uri string) int {
	e := &v.exposed
	e.subsMu.Lock()
	defer e.subsMu.Unlock()
	return e.subs[domain+"\x00"+uri]
}
