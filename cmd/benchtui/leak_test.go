package main

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// TestLeakVerdictComesWithHeapProfiles: the demo target leaking 64 KiB on
// every /leak (6.4 MB/s at 100 requests/s) is watched through its own
// /metrics; the soak policy on go_memstats_heap_inuse_bytes extends the
// step to its max, the ending says "leak suspected" on that series, and
// the command it prints, go tool pprof -diff_base on the step's two heap
// profiles, names the demo's leak handler as what the step added. The
// window holds 7 reads of 200 ms: a late one on a busy machine still
// leaves the 5 a slope needs. Not parallel: beside other tests at load
// 20, 7 of 24 reads timed out and the step was extended once, not twice.
func TestLeakVerdictComesWithHeapProfiles(t *testing.T) {
	bin := benchtuiBinary(t)
	addr, err := freeLoopbackAddr("tcp")
	if err != nil {
		t.Fatal(err)
	}
	planFile := writePlanText(t, fmt.Sprintf(`version: 1
targets:
  api:
    command: [%[1]q, "demo-target", "--http", %[2]q]
    ready: http://%[2]s/healthz
    metrics: {url: "http://%[2]s/metrics", every: 200ms, series: [heap_inuse=go_memstats_heap_inuse_bytes]}
    pprof: {url: "http://%[2]s/debug/pprof/heap", at: [start, end]}
groups:
  - id: leaky
    runner: http
    target: api
    http: {requests: [{url: "http://%[2]s/leak?kb=64"}]}
    load: {rate: 100, max_in_flight: 20}
    duration: 2s
    soak: {extend_while_rising: {series: heap_inuse, slope_per_min: 30000000, window: 1500ms, step: 1s, max: 4s}}
`, bin, addr))
	dir := t.TempDir()
	code, stdout, stderr := runCmd(t, cmdRun, planFile, "-o", dir)
	if code != exitOK {
		t.Fatalf("run: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "auto-extended 2/2") || !strings.Contains(stdout, "heap_inuse +") || !strings.Contains(stdout, "leak suspected") {
		t.Errorf("no leak verdict on heap_inuse after 2 extensions:\n%s", stdout)
	}
	if strings.Count(stderr, "soak auto-extended the step") != 2 {
		t.Errorf("progress did not tell each of the 2 auto-extensions:\n%s", stderr)
	}
	_, cmdLine, ok := strings.Cut(stdout, "heap growth: go tool pprof ")
	if !ok {
		t.Fatalf("no heap profiles to diff in:\n%s", stdout)
	}
	args := strings.Fields(strings.SplitN(cmdLine, "\n", 2)[0])
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to run go tool pprof: %v", err)
	}
	out, err := exec.Command(gobin, append([]string{"tool", "pprof", "-top", "-sample_index=inuse_space"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof %v: %v\n%s", args, err, out)
	}
	if top := topFunction(string(out)); !strings.Contains(top, "demo.(*Handler).leak") {
		t.Errorf("the heap growth's top function is %q, want the demo's leak handler:\n%s", top, out)
	}
}

// topFunction is the function on the first row of go tool pprof -top.
func topFunction(out string) string {
	_, rows, ok := strings.Cut(out, "flat%")
	if !ok {
		return ""
	}
	for _, line := range strings.Split(rows, "\n")[1:] {
		if f := strings.Fields(line); len(f) >= 6 {
			return f[5]
		}
	}
	return ""
}
