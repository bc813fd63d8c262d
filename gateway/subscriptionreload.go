package gateway

import (
	"context"
	"strings"

	"go.uber.org/zap"
)

// Subscriptions across a reload. Clients subscribed to a resource through
// a domain's shared upstream session stay subscribed when a reload keeps
// the resource visible to them, even if the domain's connection changed
// (a rotated token makes a new one): the count moves to the new
// connection, which subscribes, and the old one unsubscribes. When the
// reload removes the domain, or the access rule of the view they
// subscribed through now hides the resource, their subscription ends: the
// upstream session is unsubscribed once no view counts anyone on it, and
// a client that wants updates once the resource is shown again subscribes
// again.

// keepSubscriptions brings every view's shared-session subscriptions in
// line with the configuration in force. Update runs it, off the request
// path, after the views have the new configuration's catalog; it reads
// the configuration in force when it runs, so that, of reloads in quick
// succession, the last one decides.
func (g *Gateway) keepSubscriptions() {
	s, full := g.current(), g.Catalog()
	for _, v := range g.allViews() {
		for _, ended := range v.keepSubscriptions(s, full) {
			g.forgetSubscription(ended)
		}
	}
}

// keepSubscriptions moves the view's counts to the domains' current
// connections, and ends those of resources s no longer lets the view
// show. It returns the subscriptions it ended.
func (v *view) keepSubscriptions(s *setup, full *Catalog) (ended []sharedSubscription) {
	e := &v.exposed
	e.subsMu.Lock()
	defer e.subsMu.Unlock()
	ctx := context.Background() // each upstream call is bounded by its timeout
	for key, on := range e.subsOn {
		domain, uri, _ := strings.Cut(key, "\x00")
		n := e.subs[key]
		d := full.Domain(domain)
		switch {
		case s.byName[domain] == nil || d == nil || v.hidesAfterReload(domain, uri, d):
			if err := on.CountSubscriber(ctx, uri, -n); err != nil {
				v.g.logger.Warn("unsubscribing the upstream from a resource a reload hid or removed", zap.String("upstream", domain), errField(err))
			}
			delete(e.subs, key)
			delete(e.subsOn, key)
			ended = append(ended, sharedSubscription{view: v, domain: domain, uri: uri})
		case d.upstream != nil && d.upstream != on:
			if err := on.CountSubscriber(ctx, uri, -n); err != nil {
				v.g.logger.Warn("unsubscribing the upstream's old connection from a resource", zap.String("upstream", domain), errField(err))
			}
			if err := d.upstream.CountSubscriber(ctx, uri, n); err != nil {
				v.g.logger.Warn("subscribing the upstream's new connection to a resource clients are subscribed to", zap.String("upstream", domain), errField(err))
			}
			e.subsOn[key] = d.upstream
		}
	}
	return ended
}

// hidesAfterReload reports whether the view's rule hides the resource at
// uri of domain d: a deny glob names it, or the rule does not allow it,
// which the view's exposure tells once d has listed what it offers (a
// connection a reload made new may not have yet).
func (v *view) hidesAfterReload(domain, uri string, d *Domain) bool {
	if v.hidesURI(domain, uri) {
		return true
	}
	if d.State != StateReady {
		return false
	}
	owner, shown := v.resourceDomain(uri)
	return !shown || owner != domain
}

// forgetSubscription takes an ended subscription off its clients' lists,
// so that their leaving counts nothing out.
func (g *Gateway) forgetSubscription(sub sharedSubscription) {
	g.clients.mu.Lock()
	states := make([]*clientState, 0, len(g.clients.byClient))
	for _, st := range g.clients.byClient {
		states = append(states, st)
	}
	g.clients.mu.Unlock()
	for _, st := range states {
		st.mu.Lock()
		delete(st.subscriptions, sub)
		st.mu.Unlock()
	}
}
