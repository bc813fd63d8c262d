package gateway

import (
	"testing"
)

// TestRequestStatesOfARemovedSecretAreVoid: a reload that changes
// state_secret, or removes it, voids the states signed with the old one
// (an operator drops a secret that leaked): a state sealed, or forged,
// with it is refused afterwards; a reload that leaves the secret as it was
// keeps the states in flight.
func TestRequestStatesOfARemovedSecretAreVoid(t *testing.T) {
	cfg := Config{Upstreams: []*UpstreamConfig{httpUpstream("echo", serveHTTP(t, echoServer()).URL)}}
	tg := startGatewayWith(t, cfg, Options{StateSecret: "leaked"})
	caller := Caller{User: "alice"}
	round := roundState{Method: "tools/call", Domain: "echo", Name: "echo", Upstream: "upstream's own"}
	forged := newStateKey("leaked").seal("", caller, round, nil)
	reload := func(secret string) {
		t.Helper()
		if err := tg.Update(cfg, tg.current().upstreams, Options{StateSecret: secret}); err != nil {
			t.Fatal(err)
		}
	}
	opens := func() bool {
		_, err := tg.stateKey().open(forged, caller, "tools/call", "echo", "echo", nil)
		return err == nil
	}
	reload("leaked")
	if !opens() {
		t.Fatal("a reload with the same state_secret voided the states in flight")
	}
	reload("")
	if opens() {
		t.Error("a state signed with a state_secret the config no longer has was accepted")
	}
	random := tg.stateKey().seal("", caller, round, nil)
	reload("")
	if _, err := tg.stateKey().open(random, caller, "tools/call", "echo", "echo", nil); err != nil {
		t.Errorf("a reload without state_secret, as before, voided the states in flight: %v", err)
	}
	reload("new")
	if opens() {
		t.Error("a state signed with the old state_secret was accepted after it changed")
	}
}
