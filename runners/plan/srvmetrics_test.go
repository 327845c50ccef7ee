package plan

import (
	"strings"
	"testing"
	"time"
)

const serverPlan = `version: 1
targets:
  api:
    command: [./api]
%s
groups:
  - id: G1
    runner: sleep
    target: api
    sleep: {delay: 5ms}
    load: {concurrency: 1}
    duration: 2s
%s`

// TestTargetMetricsBecomeProbes: each metrics series is a metric probe of
// the group watching the target, named after the metric or its alias, and
// the soak policy may name it.
func TestTargetMetricsBecomeProbes(t *testing.T) {
	src := strings.Replace(serverPlan, "%s", `    metrics: {url: "http://127.0.0.1:8080/metrics", every: 5s, series: [heap_inuse=go_memstats_heap_inuse_bytes, go_gc_duration_seconds_sum]}
    log: {patterns: {warn: WARN}}
    pprof: {url: "http://127.0.0.1:8080/debug/pprof/heap"}`, 1)
	src = strings.Replace(src, "%s", `    soak: {extend_while_rising: {series: heap_inuse, slope_per_min: 1e6, step: 1s, max: 5s}}`, 1)
	p, err := ParsePlan("plan.yaml", []byte(src), env(nil), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	ps := p.Groups[0].Probes
	if len(ps) != 2 || ps[0].Name != "heap_inuse" || ps[0].Metric.Name != "go_memstats_heap_inuse_bytes" ||
		ps[1].Name != "go_gc_duration_seconds_sum" || ps[0].Every().Seconds() != 5 {
		t.Fatalf("probes %+v", ps)
	}
	if m := p.Targets["api"].Pprof.Moments(); len(m) != 2 || m[0] != "start" || m[1] != "end" {
		t.Errorf("pprof moments %v, want [start end]", m)
	}
	if errs := p.validate(testSchema{}); len(errs) != 0 || len(p.Groups[0].Probes) != 2 {
		t.Errorf("validating again: %v, %d probes; want no errors, 2 probes", errs, len(p.Groups[0].Probes))
	}
}

// TestServerKeyErrors: each bad entry is an error at the target's line,
// naming the field.
func TestServerKeyErrors(t *testing.T) {
	for _, c := range []struct{ target, group, want string }{
		{`    metrics: {url: "ftp://x/m", series: [a]}`, "", `plan.yaml:4:5: targets.api.metrics.url: want an http:// or https:// URL`},
		{`    metrics: {url: "http://x/m", series: ["9bad"]}`, "", `targets.api.metrics.series[0]: "9bad" is no Prometheus metric name`},
		{`    metrics: {url: "http://x/m", series: ["a:b"]}`, "", `targets.api.metrics.series[0]: "a:b" names a probe`},
		{`    metrics: {url: "http://x/m", series: [a], every: 10ms}`, "", `targets.api.metrics.every: want 100ms`},
		{`    metrics: {url: "http://x/m"}`, "", `plan.yaml:5:14: targets.api.metrics.series: missing (required)`},
		{`    log: {patterns: {warn: "WARN("}}`, "", `targets.api.log.patterns.warn: "WARN(" is no RE2`},
		{`    log: {patterns: {"a.b": "x"}}`, "", `targets.api.log.patterns.a.b: want 1 to 64`},
		{`    log: {patterns: {}}`, "", `targets.api.log.patterns: give at least one`},
		{`    pprof: {url: "http://x/heap", at: [middle]}`, "", `targets.api.pprof.at[0]: want start or end, got "middle"`},
		{`    pprof: {url: "http://x/heap", timeout: 1h}`, "", `targets.api.pprof.timeout: want at most 5m0s`},
		{`    pprof: {url: "http://x/debug/pprof/allocs", cpu: true}`, "", `targets.api.pprof.cpu: the CPU profile is fetched from url with /heap made /profile: want a url ending in /heap, got "http://x/debug/pprof/allocs"`},
		{``, `    soak: {extend_while_rising: {series: nope, slope_per_min: 1, step: 1s, max: 5s}}`, `group G1: soak.extend_while_rising.series: no probe named "nope"`},
		{``, `    soak: {extend_while_rising: {series: nope, slope_per_min: 1, step: 1s, max: 1s}}`, `soak.extend_while_rising.max: 1s is shorter than duration 2s`},
		{``, `    soak: {extend_while_rising: {slope_per_min: 1, step: 1s, max: 5s}}`, `groups[0].soak.extend_while_rising.series: missing (required)`},
	} {
		src := strings.Replace(serverPlan, "%s", c.target, 1)
		src = strings.Replace(src, "%s", c.group, 1)
		_, err := ParsePlan("plan.yaml", []byte(src), env(nil), testSchema{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s%s:\n got %v\nwant %s", c.target, c.group, err, c.want)
		}
	}
}

// TestLogOfAttachedTargetNeedsFile: an attached target's output is not
// benchtui's, so log: needs a file there.
func TestLogOfAttachedTargetNeedsFile(t *testing.T) {
	src := strings.Replace(serverPlan, "    command: [./api]\n%s", "    pid: 1\n    log: {patterns: {warn: WARN}}", 1)
	src = strings.Replace(src, "%s", "", 1)
	_, err := ParsePlan("plan.yaml", []byte(src), env(nil), testSchema{})
	if err == nil || !strings.Contains(err.Error(), "targets.api.log: an attached target has no output benchtui holds: give log.file or log.command") {
		t.Errorf("got %v", err)
	}
}

// TestLogCommandAndContainerKeys: log.command stands for log.file on an
// attached target (a container's, say), not beside file; container and
// runtime are checked where they are written.
func TestLogCommandAndContainerKeys(t *testing.T) {
	for _, c := range []struct{ target, want string }{
		{"    container: api\n    log: {patterns: {warn: WARN}, command: [journalctl, -f, -u, api.service, -o, cat]}", ""},
		{"    container: api\n    runtime: podman\n    log: {patterns: {warn: WARN}, command: [docker, logs, -f, api]}", ""},
		{"    pid: 1\n    log: {patterns: {warn: WARN}, command: [a], file: x.log}", "targets.api.log: give file or command, not both"},
		{"    pid: 1\n    log: {patterns: {warn: WARN}, command: [\"\"]}", "targets.api.log.command: give the program"},
		{"    container: api\n    log: {patterns: {warn: WARN}}", "give log.file or log.command"},
		{"    container: api\n    pid: 1", "targets.api: give exactly one of command, pid, pidfile, cgroup, container"},
		{"    pid: 1\n    runtime: docker", "targets.api.runtime: runtime is for a container target"},
		{"    container: api\n    runtime: lxc", `targets.api.runtime: want one of docker, podman, nerdctl, got "lxc"`},
		{"    container: \"-v\"", `targets.api.container: "-v" starts with '-'`},
		{"    container: \"a\\tb\"", `targets.api.container: "a\tb" holds control characters`},
		{"    container: api\n    tree: true", "targets.api.tree: a cgroup is sampled whole"},
	} {
		src := strings.Replace(serverPlan, "    command: [./api]\n%s", c.target, 1)
		src = strings.Replace(src, "%s", "", 1)
		_, err := ParsePlan("plan.yaml", []byte(src), env(nil), testSchema{})
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s:\n got %v\nwant %q", c.target, err, c.want)
		}
	}
}

// TestCPUURL: the CPU profile comes from the heap's net/http/pprof, its
// seconds the measured window's rounded up within 1 s to MaxCPUProfile;
// the heap's gc is dropped, other parameters kept.
func TestCPUURL(t *testing.T) {
	for _, c := range []struct {
		url  string
		d    time.Duration
		want string
	}{
		{"http://127.0.0.1:8080/debug/pprof/heap", 2 * time.Second, "http://127.0.0.1:8080/debug/pprof/profile?seconds=2"},
		{"http://127.0.0.1:8080/admin/pprof/heap?gc=1&token=x", 2500 * time.Millisecond, "http://127.0.0.1:8080/admin/pprof/profile?seconds=3&token=x"},
		{"http://[::1]:80/debug/pprof/heap", 0, "http://[::1]:80/debug/pprof/profile?seconds=1"},
		{"http://h/debug/pprof/heap", time.Hour, "http://h/debug/pprof/profile?seconds=300"},
	} {
		got, ok := (&TargetPprof{URL: c.url}).CPUURL(c.d)
		if !ok || got != c.want {
			t.Errorf("CPUURL(%s, %s) = %q, %v; want %q", c.url, c.d, got, ok, c.want)
		}
	}
	if _, ok := (&TargetPprof{URL: "http://h/debug/pprof/heapx"}).CPUURL(time.Second); ok {
		t.Error("a url not ending in /heap gave a CPU profile's")
	}
}
