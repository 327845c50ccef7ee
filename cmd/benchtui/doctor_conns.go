package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/sse"
	"github.com/benchtui/benchtui/runners/wsload"
)

// hostLimits are the kernel's limits on a machine's connections, read
// from /proc; a zero field is one this machine does not have or say.
type hostLimits struct {
	portLo, portHi int   // net.ipv4.ip_local_port_range
	conntrackMax   int   // net.netfilter.nf_conntrack_max (0: no conntrack)
	conntrackCount int   // the entries tracked now
	memAvailable   int64 // bytes: MemAvailable in /proc/meminfo
}

// readHostLimits reads the limits from /proc, leaving zero each one it
// cannot read (any OS but Linux: all of them).
func readHostLimits() hostLimits {
	var h hostLimits
	if f := procInts("/proc/sys/net/ipv4/ip_local_port_range"); len(f) == 2 {
		h.portLo, h.portHi = f[0], f[1]
	}
	if f := procInts("/proc/sys/net/netfilter/nf_conntrack_max"); len(f) == 1 {
		h.conntrackMax = f[0]
	}
	if f := procInts("/proc/sys/net/netfilter/nf_conntrack_count"); len(f) == 1 {
		h.conntrackCount = f[0]
	}
	h.memAvailable = memAvailable()
	return h
}

// procInts reads a /proc/sys file of whitespace-separated integers.
func procInts(path string) []int {
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 4096 {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(data)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil
		}
		out = append(out, n)
	}
	return out
}

// memAvailable is MemAvailable of /proc/meminfo in bytes, 0 unknown.
func memAvailable() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// checkConnections compares the plan's largest groups with the limits
// that cap how many connections one machine opens: each group's
// connections (or subscribers) against the ephemeral ports of its source
// addresses and the connection tracking table, and its held streams'
// memory against what the machine has free. Each finding past a limit
// names the command that raises it.
func checkConnections(pl *plan.Plan, h hostLimits) []finding {
	var fs []finding
	for _, g := range pl.Groups {
		n := unitsOf(g)
		if n <= 1000 {
			continue // far below any of the limits on a working machine
		}
		fs = append(fs, checkPorts(g, n, h)...)
		fs = append(fs, checkConntrack(g, n, h)...)
		fs = append(fs, checkStreamMemory(g, n, h)...)
	}
	return fs
}

// checkPorts: one source address holds as many connections to one
// server address and port as the ephemeral range has ports.
func checkPorts(g *plan.Group, n int, h hostLimits) []finding {
	if h.portHi <= h.portLo {
		return nil
	}
	ports := h.portHi - h.portLo + 1
	sources := max(sourcesOf(g), 1)
	if n <= ports*sources {
		return []finding{{"ok", fmt.Sprintf("group %s: ports: %d connections within %d ephemeral ports × %d source address(es)", g.ID, n, ports, sources)}}
	}
	need := (n + ports - 1) / ports
	fix := "widen the range: sysctl -w net.ipv4.ip_local_port_range=\"1024 65535\""
	if section := sourcesSection(g); section != "" {
		fix = fmt.Sprintf("for a loopback server add `sources: [127.0.1.0/%d]` to the %s section, or %s", 32-prefixFor(need), section, fix)
	}
	return []finding{{"warn", fmt.Sprintf("group %s: ports: %d connections to one server need %d source addresses at %d ephemeral ports each, the group has %d: %s",
		g.ID, n, need, ports, sources, fix)}}
}

// prefixFor is the bits of the smallest block of at least n addresses.
func prefixFor(n int) int {
	bits := 0
	for 1<<bits < n {
		bits++
	}
	return bits
}

// sourcesSection is the section of a group whose kind takes `sources:`
// (sse, websocket), "" for another kind.
func sourcesSection(g *plan.Group) string {
	switch {
	case plan.Section[sse.Spec](g, sse.Section) != nil:
		return sse.Section
	case plan.Section[wsload.Spec](g, wsload.Section) != nil:
		return wsload.Section
	}
	return ""
}

// sourcesOf is how many source addresses a group's connections come
// from: its sse.sources or websocket.sources (0: the one the kernel
// picks).
func sourcesOf(g *plan.Group) int {
	var specs []string
	if s := plan.Section[sse.Spec](g, sse.Section); s != nil {
		specs = s.Sources
	} else if s := plan.Section[wsload.Spec](g, wsload.Section); s != nil {
		specs = s.Sources
	}
	addrs, err := runners.ParseSources("sources", specs)
	if err != nil {
		return 0
	}
	return len(addrs)
}

// checkConntrack: where the kernel tracks connections (the nf_conntrack
// module is loaded), every one open takes an entry, loopback's too.
func checkConntrack(g *plan.Group, n int, h hostLimits) []finding {
	if h.conntrackMax == 0 {
		return nil
	}
	free := h.conntrackMax - h.conntrackCount
	if n <= free {
		return []finding{{"ok", fmt.Sprintf("group %s: conntrack: %d connections within %d free entries", g.ID, n, free)}}
	}
	return []finding{{"warn", fmt.Sprintf("group %s: conntrack: %d connections, %d free entries of net.netfilter.nf_conntrack_max %d (a full table drops new connections): sysctl -w net.netfilter.nf_conntrack_max=%d",
		g.ID, n, free, h.conntrackMax, h.conntrackCount+2*n)}}
}

// checkStreamMemory: an sse group's held streams cost benchtui about
// sse.BytesPerSubscriber each; the server, if on this machine, needs its
// own on top.
func checkStreamMemory(g *plan.Group, n int, h hostLimits) []finding {
	if g.Runner != "sse" || h.memAvailable == 0 {
		return nil
	}
	need := int64(n) * sse.BytesPerSubscriber
	if need <= h.memAvailable/2 {
		return []finding{{"ok", fmt.Sprintf("group %s: memory: %d subscribers need about %d MB, %d MB available", g.ID, n, need>>20, h.memAvailable>>20)}}
	}
	return []finding{{"warn", fmt.Sprintf("group %s: memory: %d subscribers need about %d MB (%d KB each), more than half the %d MB available, and a server on this machine needs its own: free memory, or hold fewer (sse.subscribers)",
		g.ID, n, need>>20, sse.BytesPerSubscriber>>10, h.memAvailable>>20)}}
}
