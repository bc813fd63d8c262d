package gateway

import (
	"net"
	"testing"
)

// TestIsLoopbackAddrAgreesWithItsText: the edge's DNS-rebinding check
// judges a local TCP address as it would judge the address's text.
func TestIsLoopbackAddrAgreesWithItsText(t *testing.T) {
	ips := []net.IP{
		net.ParseIP("127.0.0.1"), net.ParseIP("127.1.2.3"), {127, 0, 0, 1}, net.ParseIP("::1"),
		net.ParseIP("::ffff:127.0.0.1"), net.ParseIP("10.0.0.1"), net.ParseIP("::"),
		net.ParseIP("0.0.0.0"), net.ParseIP("fe80::1"), nil,
	}
	for _, ip := range ips {
		for _, zone := range []string{"", "lo"} {
			a := &net.TCPAddr{IP: ip, Port: 443, Zone: zone}
			if got, want := isLoopbackAddr(a), isLoopback(a.String()); got != want {
				t.Errorf("isLoopbackAddr(%s) = %v, want %v", a, got, want)
			}
		}
	}
	if u := (&net.UnixAddr{Name: "/run/gw.sock", Net: "unix"}); isLoopbackAddr(u) != isLoopback(u.String()) {
		t.Errorf("isLoopbackAddr(%s) disagrees with its text", u)
	}
}
