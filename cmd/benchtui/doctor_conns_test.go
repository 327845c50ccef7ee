package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// subscribersPlan is a plan of one sse group of n subscribers from
// sources (a YAML list, "" for none).
func subscribersPlan(t *testing.T, n, sources string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "subs.yaml")
	text := "version: 1\ngroups:\n  - id: subs\n    runner: sse\n    sse: {url: \"http://127.0.0.1:9/events\", subscribers: " + n
	if sources != "" {
		text += ", sources: " + sources
	}
	text += "}\n    duration: 1s\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDoctorNamesConnectionLimits: 100,000 subscribers against a small
// machine's limits are told, each with the command that raises it; the
// same plan with four source addresses is within the ports.
func TestDoctorNamesConnectionLimits(t *testing.T) {
	t.Parallel()
	small := hostLimits{portLo: 32768, portHi: 60999, conntrackMax: 65536, conntrackCount: 100, memAvailable: 1 << 30}
	pl, err := loadPlan(subscribersPlan(t, "100000", ""))
	if err != nil {
		t.Fatal(err)
	}
	got := findingsText(checkConnections(pl, small))
	for _, want := range []string{
		"warn  group subs: ports: 100000 connections to one server need 4 source addresses at 28232 ephemeral ports each, the group has 1: for a loopback server add `sources: [127.0.1.0/30]` to the sse section, or widen the range: sysctl -w net.ipv4.ip_local_port_range=\"1024 65535\"",
		"warn  group subs: conntrack: 100000 connections, 65436 free entries of net.netfilter.nf_conntrack_max 65536 (a full table drops new connections): sysctl -w net.netfilter.nf_conntrack_max=200100",
		"warn  group subs: memory: 100000 subscribers need about 976 MB (10 KB each), more than half the 1024 MB available",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("findings lack\n%s\nin\n%s", want, got)
		}
	}
	pl, err = loadPlan(subscribersPlan(t, "100000", "[127.0.0.1/30]"))
	if err != nil {
		t.Fatal(err)
	}
	roomy := hostLimits{portLo: 32768, portHi: 60999, memAvailable: 16 << 30}
	got = findingsText(checkConnections(pl, roomy))
	for _, want := range []string{"ok    group subs: ports: 100000 connections within 28232 ephemeral ports × 4 source address(es)",
		"ok    group subs: memory: 100000 subscribers need about 976 MB, 16384 MB available"} {
		if !strings.Contains(got, want) {
			t.Errorf("findings lack\n%s\nin\n%s", want, got)
		}
	}
	if strings.Contains(got, "conntrack") {
		t.Errorf("a machine without conntrack got a conntrack finding:\n%s", got)
	}
	ws := filepath.Join(t.TempDir(), "ws.yaml")
	if err := os.WriteFile(ws, []byte(`version: 1
groups:
  - id: chat
    runner: websocket
    websocket: {url: "ws://127.0.0.1:9/chat", sources: [127.0.0.1/31], messages: [{name: say, text: hi, no_reply: true}]}
    load: {concurrency: 100000}
    duration: 1s
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if pl, err = loadPlan(ws); err != nil {
		t.Fatal(err)
	}
	want := "warn  group chat: ports: 100000 connections to one server need 4 source addresses at 28232 ephemeral ports each, the group has 2: for a loopback server add `sources: [127.0.1.0/30]` to the websocket section"
	if got := findingsText(checkConnections(pl, roomy)); !strings.Contains(got, want) {
		t.Errorf("findings lack\n%s\nin\n%s", want, got)
	}
}

// TestDoctorReadsThisMachinesLimits runs doctor on the plan: on Linux it
// reads the port range and the memory from /proc and says them.
func TestDoctorReadsThisMachinesLimits(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the limits are read from Linux's /proc")
	}
	h := readHostLimits()
	if h.portLo <= 0 || h.portHi <= h.portLo || h.memAvailable <= 0 {
		t.Fatalf("read %+v from /proc, want a port range and the memory available", h)
	}
	_, stdout, _ := runCmd(t, cmdDoctor, subscribersPlan(t, "50000", ""))
	for _, want := range []string{"group subs: ports: 50000 connections", "group subs: memory: 50000 subscribers need about 488 MB"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, stdout)
		}
	}
}

func findingsText(fs []finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.level + strings.Repeat(" ", max(6-len(f.level), 1)) + f.what + "\n")
	}
	return b.String()
}
