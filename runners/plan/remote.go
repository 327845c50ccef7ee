package plan

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"time"
)

// addressKeys are the plan keys, in any section, whose values say where
// load goes: URLs, host:port addresses and Postgres DSNs.
var addressKeys = map[string]bool{"url": true, "freeze_url": true, "addr": true, "dsn": true}

// Resolver looks a host name up (net.DefaultResolver.LookupNetIP fits).
type Resolver func(ctx context.Context, network, host string) ([]netip.Addr, error)

// RemoteWarnings names each place in the plan that sends load to an
// address that is neither loopback nor private (RFC 1918, RFC 4193,
// link-local): loading a server that is not yours is easy to do by
// mistake, and is not a benchmark. Names are resolved with resolve, each
// within a second; a name that does not resolve is left to the run.
func (p *Plan) RemoteWarnings(resolve Resolver) []string {
	var out []string
	seen := map[string]bool{}
	for _, g := range p.Groups {
		for _, a := range addressesIn(g.Raw, "") {
			host := hostOf(a.value)
			if host == "" || seen[g.ID+" "+host] || localHost(host, resolve) {
				continue
			}
			seen[g.ID+" "+host] = true
			out = append(out, fmt.Sprintf("group %s: %s: %s is neither a loopback nor a private address: make sure that server is yours to load", g.ID, a.key, Printable(host)))
		}
	}
	return out
}

type address struct{ key, value string }

// addressesIn collects the values of address keys in a group's config.
func addressesIn(v any, key string) []address {
	var out []address
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if s, ok := v[k].(string); ok && addressKeys[k] {
				out = append(out, address{joinKey(key, k), s})
				continue
			}
			out = append(out, addressesIn(v[k], joinKey(key, k))...)
		}
	case []any:
		for i, item := range v {
			out = append(out, addressesIn(item, fmt.Sprintf("%s[%d]", key, i))...)
		}
	}
	return out
}

var dsnHost = regexp.MustCompile(`(?:^|\s)host\s*=\s*'?([^'\s]+)`)

// hostOf is the host a URL, host:port or key=value DSN names ("" when it
// names none, such as `dsn: embedded` or a Unix socket folder).
func hostOf(s string) string {
	if m := dsnHost.FindStringSubmatch(s); m != nil {
		s = m[1]
	} else if _, rest, ok := strings.Cut(s, "://"); ok {
		// By hand, not url.Parse: a redacted password is no valid userinfo.
		rest, _, _ = strings.Cut(rest, "/")
		rest, _, _ = strings.Cut(rest, "?")
		s = rest[strings.LastIndex(rest, "@")+1:]
	}
	s, _, _ = strings.Cut(s, ",") // the first of a multi-host DSN
	if h, _, err := net.SplitHostPort(s); err == nil {
		s = h
	}
	s = strings.Trim(s, "[]")
	if s == "" || strings.HasPrefix(s, "/") || s == "embedded" {
		return ""
	}
	return s
}

// localHost reports whether host is loopback or private, resolving a name.
func localHost(host string, resolve Resolver) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return local(a)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	addrs, err := resolve(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return true
	}
	for _, a := range addrs {
		if !local(a) {
			return false
		}
	}
	return true
}

func local(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsUnspecified()
}
