package runners

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

func TestParseSources(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string // the addresses, space-separated; or the error's words
	}{
		{nil, ""},
		{[]string{"127.0.0.2"}, "127.0.0.2"},
		{[]string{"127.0.0.1/30", "127.0.0.9"}, "127.0.0.0 127.0.0.1 127.0.0.2 127.0.0.3 127.0.0.9"},
		{[]string{" ::1 "}, "::1"},
		{[]string{"::ffff:127.0.0.1"}, "127.0.0.1"},
		{[]string{"127.0.0.0/22"}, "1024 addresses"},
		{[]string{"127.0.0.0/21"}, `sources[0] "127.0.0.0/21": more than 1024 addresses in all`},
		{[]string{"127.0.0.0/23", "127.0.2.0/23"}, "1024 addresses"},
		{[]string{"127.0.0.0/22", "127.0.4.1"}, `sources[1] "127.0.4.1": more than 1024`},
		{[]string{"127.0.0.0/8"}, "more than 1024"},
		{[]string{"127.0.0.1", "::1"}, `sources[1] "::1": mixes IPv4 and IPv6`},
		{[]string{"localhost"}, `sources[0] "localhost": want an IP address or a CIDR block`},
		{[]string{"127.0.0.1/33"}, "want an IP address or a CIDR block"},
		{[]string{"fe80::1%eth0"}, "want an IP address"},
	} {
		got, err := ParseSources("sources", c.in)
		var s string
		switch {
		case err != nil:
			s = err.Error()
		case len(got) > 16:
			s = strconv.Itoa(len(got)) + " addresses"
		default:
			for i, a := range got {
				if i > 0 {
					s += " "
				}
				s += a.String()
			}
		}
		if !strings.Contains(s, c.want) || (c.want == "" && s != "") {
			t.Errorf("ParseSources(%q) = %q, want %q", c.in, s, c.want)
		}
	}
}

// TestSourceDialersBindEachAddress opens a connection from each of two
// loopback source addresses to a loopback server, which sees them.
func TestSourceDialersBindEachAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	srcs, err := ParseSources("sources", []string{"127.0.0.2/31"})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckSources("sources", srcs); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, d := range SourceDialers(&net.Dialer{}, srcs) {
		c, err := d.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		seen[s.RemoteAddr().(*net.TCPAddr).IP.String()] = true
		_ = s.Close()
		_ = c.Close()
	}
	if !seen["127.0.0.2"] || !seen["127.0.0.3"] || len(seen) != 2 {
		t.Errorf("the server saw connections from %v, want 127.0.0.2 and 127.0.0.3", seen)
	}
	if got := SourceDialers(&net.Dialer{}, nil); len(got) != 1 || got[0].LocalAddr != nil {
		t.Errorf("no sources: %d dialers, want the one given", len(got))
	}
}

// TestCheckSourcesNamesAForeignAddress: an address of no interface here
// (TEST-NET-1, bound, never sent to) is refused by name.
func TestCheckSourcesNamesAForeignAddress(t *testing.T) {
	srcs, _ := ParseSources("sse.sources", []string{"127.0.0.1", "192.0.2.7"})
	err := CheckSources("sse.sources", srcs)
	if err == nil || !strings.Contains(err.Error(), "sse.sources: 192.0.2.7 is not an address of this machine") {
		t.Errorf("CheckSources: %v, want 192.0.2.7 named", err)
	}
}
