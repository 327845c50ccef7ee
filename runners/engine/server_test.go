package engine

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// serverPlan parses src, whose %[1]s is the srvmetrics helper and %[2]s
// and %[3]s two free addresses.
func serverPlan(t *testing.T, src string) *plan.Plan {
	t.Helper()
	bin := testbin.Build(t, "./testdata/srvmetrics")
	src = fmt.Sprintf(src, bin, testbin.FreeAddr(t), testbin.FreeAddr(t))
	p := parseTestPlan(t, "srv.yaml", src)
	return p
}

// runOne runs g's one step and returns it.
func runOne(t *testing.T, run *Run, g *plan.Group) artifacts.Step {
	t.Helper()
	s, err := run.Session(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	s.Start(context.Background())
	for range s.Snapshots() {
	}
	a := s.Result()
	if len(a.Steps) != 1 {
		t.Fatalf("%s: steps %+v", g.ID, a.Steps)
	}
	return a.Steps[0]
}

// TestMetricsSeriesDriveTheSoakPolicy: a server whose heap grows by 512 KiB
// every 50 ms (about 600 MB/min) shows a rising go_memstats_heap_inuse_bytes
// series read from its own /metrics page, and the soak policy on that
// series extends its step to the max; a flat server's step is not
// extended. The leaky step's heap profiles at start and end are saved
// beside the artifact, and go tool pprof reads them.
func TestMetricsSeriesDriveTheSoakPolicy(t *testing.T) {
	p := serverPlan(t, `version: 1
targets:
  leaky:
    command: [%[1]q, "-http", %[2]q, "-leak-kb", "512", "-every", "50ms"]
    ready: http://%[2]s/metrics
    metrics: {url: "http://%[2]s/metrics", every: 100ms, series: [heap_inuse=go_memstats_heap_inuse_bytes, go_gc_cycles_total]}
    pprof: {url: "http://%[2]s/debug/pprof/heap", at: [start, end]}
  flat:
    command: [%[1]q, "-http", %[3]q]
    ready: http://%[3]s/metrics
    metrics: {url: "http://%[3]s/metrics", every: 100ms, series: [heap_inuse=go_memstats_heap_inuse_bytes]}
groups:
  - id: leaky
    runner: sleep
    target: leaky
    sleep: {delay: 10ms}
    load: {concurrency: 1}
    duration: 2s
    soak: {extend_while_rising: {series: heap_inuse, slope_per_min: 60000000, window: 1s, step: 500ms, max: 3500ms}}
    thresholds: {checks: [{figure: probes.heap_inuse.slope_per_min, "<": "60000000"}]}
  - id: flat
    runner: sleep
    target: flat
    sleep: {delay: 10ms}
    load: {concurrency: 1}
    duration: 2s
    soak: {extend_while_rising: {series: heap_inuse, slope_per_min: 60000000, window: 1s, step: 500ms, max: 3500ms}}
`)
	dir := t.TempDir()
	run := NewRun(p, testRegistry, dir, "test")
	defer run.Close()
	leaky, flat := runOne(t, run, p.Groups[0]), runOne(t, run, p.Groups[1])
	lh, fh := leaky.Probes["heap_inuse"], flat.Probes["heap_inuse"]
	t.Logf("leaky: %.2fs, heap_inuse %d reads, %.3g..%.3g, %.3g/min; flat: %.2fs, %d reads, %.3g/min",
		leaky.DurationS, lh.Samples, lh.Min, lh.Max, lh.SlopePerMin, flat.DurationS, fh.Samples, fh.SlopePerMin)

	if lh.Samples < 5 || lh.Max-lh.Min < 4<<20 || lh.SlopePerMin < 100e6 {
		t.Errorf("leaky heap_inuse: %d reads from %.3g to %.3g, %.3g/min; want a rise of at least 4 MiB, 100 MB/min", lh.Samples, lh.Min, lh.Max, lh.SlopePerMin)
	}
	if _, ok := leaky.Probes["go_gc_cycles_total"]; !ok {
		t.Errorf("leaky: no go_gc_cycles_total probe in %v", leaky.Probes)
	}
	if n := countEvents(leaky, artifacts.EventExtended); n != 3 {
		t.Errorf("leaky: %d extensions, want 3 (to the 3.5s max); events %+v", n, leaky.Events)
	}
	if !failedCheck(leaky, "probes.heap_inuse.slope_per_min") {
		t.Errorf("leaky: the slope check did not fail: %+v", leaky.Checks)
	}
	if n := countEvents(flat, artifacts.EventExtended); n != 0 {
		t.Errorf("flat: %d extensions, want none; events %+v", n, flat.Events)
	}
	for _, moment := range []string{"heap_start", "heap_end"} {
		checkProfile(t, dir, leaky.Profiles[moment])
	}
	if len(flat.Profiles) != 0 {
		t.Errorf("flat: profiles %v, want none (no pprof key)", flat.Profiles)
	}
}

func failedCheck(st artifacts.Step, name string) bool {
	for _, c := range st.Checks {
		if strings.Contains(c.Name, name) && !c.OK {
			return true
		}
	}
	return false
}

// checkProfile checks that name is a gzip'd profile in dir that go tool
// pprof reads.
func checkProfile(t *testing.T, dir, name string) {
	t.Helper()
	if name == "" {
		t.Error("profile not saved")
		return
	}
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Errorf("%s: %d bytes, err %v; want a gzip'd profile", name, len(b), err)
		return
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Logf("no go command to run go tool pprof: %v", err)
		return
	}
	out, err := exec.Command(gobin, "tool", "pprof", "-top", path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "inuse_space") {
		t.Errorf("go tool pprof -top %s: %v\n%s", name, err, out)
	}
}

// TestLogLinesCountedInTheMeasuredPhase: a spawned server writes WARN 3
// times at start (before the step: not counted), then 5 times and
// "session sweep" twice when the step's action asks it to; the step's
// counters say log.warn 5 and log.sweep 2, and a check on log.warn fails.
func TestLogLinesCountedInTheMeasuredPhase(t *testing.T) {
	t.Parallel()
	p := serverPlan(t, `version: 1
targets:
  api:
    command: [%[1]q, "-http", %[2]q, "-start-warns", "3"]
    ready: http://%[2]s/metrics
    log: {patterns: {warn: "WARN", sweep: "session sweep", none: "^never$"}}
groups:
  - id: logs
    runner: sleep
    target: api
    sleep: {delay: 10ms}
    load: {concurrency: 1}
    warmup: 300ms
    duration: 1s
    actions:
      - {at: 200ms, http: {url: "http://%[2]s/log?n=5&text=WARN"}}
      - {at: 400ms, http: {url: "http://%[2]s/log?n=2&text=session+sweep"}}
    thresholds: {checks: [{figure: counters.log.warn, "<": "5"}]}
`)
	run := NewRun(p, testRegistry, t.TempDir(), "test")
	defer run.Close()
	st := runOne(t, run, p.Groups[0])
	want := map[string]int64{"log.warn": 5, "log.sweep": 2, "log.none": 0}
	for k, v := range want {
		if got, ok := st.Counters[k]; !ok || got != v {
			t.Errorf("counters[%s] = %d (present %v), want %d; counters %v, events %+v", k, got, ok, v, st.Counters, st.Events)
		}
	}
	if !failedCheck(st, "counters.log.warn") {
		t.Errorf("the check on counters.log.warn did not fail: %+v", st.Checks)
	}
}

// TestServerFiguresOfEveryTarget: two targets with metrics, log and pprof
// are each read: the first's figures plainly (log.warn, heap_inuse,
// heap_start), the second's as TARGET/NAME (log.db/warn, db/heap_inuse,
// db/heap_start), each counting only its own log's lines, and a check
// reads the second's counter by that name.
func TestServerFiguresOfEveryTarget(t *testing.T) {
	t.Parallel()
	p := serverPlan(t, `version: 1
targets:
  api:
    command: [%[1]q, "-http", %[2]q]
    ready: http://%[2]s/metrics
    metrics: {url: "http://%[2]s/metrics", every: 100ms, series: [heap_inuse=go_memstats_heap_inuse_bytes]}
    log: {patterns: {warn: "WARN"}}
    pprof: {url: "http://%[2]s/debug/pprof/heap", at: [start, end]}
  db:
    command: [%[1]q, "-http", %[3]q]
    ready: http://%[3]s/metrics
    metrics: {url: "http://%[3]s/metrics", every: 100ms, series: [heap_inuse=go_memstats_heap_inuse_bytes]}
    log: {patterns: {warn: "WARN"}}
    pprof: {url: "http://%[3]s/debug/pprof/heap", at: [end]}
groups:
  - id: both
    runner: sleep
    target: [api, db]
    sleep: {delay: 10ms}
    load: {concurrency: 1}
    duration: 1s
    actions:
      - {at: 200ms, http: {url: "http://%[2]s/log?n=2&text=WARN"}}
      - {at: 300ms, http: {url: "http://%[3]s/log?n=3&text=WARN"}}
    thresholds: {checks: [{figure: counters.log.db/warn, "<": "3"}]}
`)
	dir := t.TempDir()
	run := NewRun(p, testRegistry, dir, "test")
	defer run.Close()
	st := runOne(t, run, p.Groups[0])
	if st.Counters["log.warn"] != 2 || st.Counters["log.db/warn"] != 3 {
		t.Errorf("counters %v, want log.warn 2 (api's) and log.db/warn 3 (db's); events %+v", st.Counters, st.Events)
	}
	for _, name := range []string{"heap_inuse", "db/heap_inuse"} {
		if ps := st.Probes[name]; ps.Samples < 3 || ps.Min <= 0 {
			t.Errorf("probe %s: %+v, want a few reads of a positive heap", name, ps)
		}
	}
	for _, key := range []string{"heap_start", "heap_end", "db/heap_end"} {
		checkProfile(t, dir, st.Profiles[key])
	}
	if len(st.Profiles) != 3 || !strings.Contains(st.Profiles["db/heap_end"], "-db-heap-end") {
		t.Errorf("profiles %v, want api's start and end and db's end, in files named apart", st.Profiles)
	}
	if !failedCheck(st, "counters.log.db/warn") {
		t.Errorf("the check on counters.log.db/warn did not fail: %+v", st.Checks)
	}
}

// TestCPUProfileOfTheMeasuredWindow: with pprof.cpu the target is asked
// for a CPU profile of the measured window when it opens; it answers when
// the window closes, and the profile is saved beside the artifact as
// …-cpu.pb.gz, named in profiles.cpu, covering the planned 2 s. A step
// that ends before its planned window (counted: 5 operations) cancels it:
// a note says so and no profile is named.
func TestCPUProfileOfTheMeasuredWindow(t *testing.T) {
	t.Parallel()
	p := serverPlan(t, `version: 1
targets:
  api:
    command: [%[1]q, "-http", %[2]q]
    ready: http://%[2]s/metrics
    pprof: {url: "http://%[2]s/debug/pprof/heap", at: [end], cpu: true}
groups:
  - id: whole
    runner: sleep
    target: api
    sleep: {delay: 10ms}
    load: {concurrency: 1}
    duration: 2s
  - id: counted
    runner: sleep
    target: api
    sleep: {delay: 10ms}
    load: {concurrency: 1}
    iterations: 5
    max_duration: 2s
`)
	dir := t.TempDir()
	run := NewRun(p, testRegistry, dir, "test")
	defer run.Close()
	whole := runOne(t, run, p.Groups[0])
	name := whole.Profiles["cpu"]
	if !strings.HasPrefix(name, "whole-") || !strings.HasSuffix(name, "-step1-run1-cpu.pb.gz") {
		t.Fatalf("profiles %v, want cpu: whole-…-step1-run1-cpu.pb.gz; events %+v", whole.Profiles, whole.Events)
	}
	prof, err := artifacts.LoadProfile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if got := time.Duration(prof.DurationNanos); got < 1900*time.Millisecond || got > 4*time.Second {
		t.Errorf("the profile covers %s, want the planned 2s", got)
	}
	if types := prof.SampleType; len(types) != 2 || types[1].Type != "cpu" {
		t.Errorf("sample types %v, want samples and cpu", types)
	}
	counted := runOne(t, run, p.Groups[1])
	if _, ok := counted.Profiles["cpu"]; ok || !hasNote(counted, "cpu profile of api: the measured window closed before the 2s profiled") {
		t.Errorf("counted: profiles %v, events %+v; want no cpu profile and a note", counted.Profiles, counted.Events)
	}
}

// hasNote reports whether st has a note event holding text.
func hasNote(st artifacts.Step, text string) bool {
	for _, e := range st.Events {
		if e.Kind == artifacts.EventNote && strings.Contains(e.Note, text) {
			return true
		}
	}
	return false
}
