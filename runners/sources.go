package runners

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// MaxSources bounds the local addresses a group's `sources:` may name,
// its CIDR blocks counted whole.
const MaxSources = 1024

// EphemeralPorts is the size of Linux's default ephemeral port range
// (net.ipv4.ip_local_port_range 32768–60999): about how many connections
// one source address holds to one server address and port.
const EphemeralPorts = 60999 - 32768 + 1

// ParseSources reads a group's `sources:`, each an IP address or a CIDR
// block (127.0.0.0/29: its 8 addresses), into the local addresses
// connections are opened from, in order. A block may not name more than
// MaxSources addresses in all, nor mix IPv4 with IPv6.
func ParseSources(field string, specs []string) ([]netip.Addr, error) {
	var out []netip.Addr
	for i, s := range specs {
		key := fmt.Sprintf("%s[%d]", field, i)
		addrs, err := sourceAddrs(strings.TrimSpace(s), MaxSources-len(out))
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", key, s, err)
		}
		if len(out) > 0 && addrs[0].Is4() != out[0].Is4() {
			return nil, fmt.Errorf("%s %q: mixes IPv4 and IPv6 sources", key, s)
		}
		out = append(out, addrs...)
	}
	return out, nil
}

// sourceAddrs reads one address or block, of at most room addresses.
func sourceAddrs(s string, room int) ([]netip.Addr, error) {
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("want an IP address or a CIDR block like 127.0.0.0/29")
		}
		if room < 1 {
			return nil, fmt.Errorf("more than %d addresses in all", MaxSources)
		}
		return []netip.Addr{a.Unmap()}, nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return nil, fmt.Errorf("want an IP address or a CIDR block like 127.0.0.0/29")
	}
	p = p.Masked()
	if bits := p.Addr().BitLen() - p.Bits(); bits > 10 || 1<<bits > room {
		return nil, fmt.Errorf("more than %d addresses in all", MaxSources)
	}
	var out []netip.Addr
	for a := p.Addr(); p.Contains(a); a = a.Next() {
		out = append(out, a)
	}
	return out, nil
}

// SourceDialers are copies of d, one per source address, each binding its
// connections to its address (no sources: d alone). Connection i of a
// group opens from SourceDialers(…)[i mod n], so that past EphemeralPorts
// connections to one server the load spreads over several addresses.
func SourceDialers(d *net.Dialer, sources []netip.Addr) []*net.Dialer {
	if len(sources) == 0 {
		return []*net.Dialer{d}
	}
	out := make([]*net.Dialer, len(sources))
	for i, a := range sources {
		c := *d
		c.LocalAddr = &net.TCPAddr{IP: a.AsSlice()}
		c.Control = bindNoPort
		out[i] = &c
	}
	return out
}

// CheckSources says which source address this machine cannot open
// connections from (binding a socket to it fails), under field's name;
// nil when every one can.
func CheckSources(field string, sources []netip.Addr) error {
	for _, a := range sources {
		l, err := net.Listen("tcp", netip.AddrPortFrom(a, 0).String())
		if err != nil {
			return fmt.Errorf("%s: %s is not an address of this machine: %w", field, a, err)
		}
		_ = l.Close()
	}
	return nil
}
