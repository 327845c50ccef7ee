package engine

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// TestSeveralTargets watches two spawned targets in one group, one that
// retains 1 MiB every 100 ms and one that stays flat: each is watched
// apart under its own pid, their sum is the sum of the parts, the first is
// the step's `target`, and a check on one target's figure is judged on it.
func TestSeveralTargets(t *testing.T) {
	t.Parallel()
	p, run := leakyAndFlat(t, "two.yaml", `  - id: two
    runner: sleep
    target: [leaky, flat]
    sleep: {delay: 10ms}
    load: {concurrency: 1}
    duration: 2s
    thresholds:
      checks:
        - {figure: targets.leaky.rss_mb.peak, ">=": 10}
        - {figure: targets.flat.rss_mb.peak, "<=": 1}
        - {figure: targets_sum.rss_mb.peak, ">": 0}
`)
	s, err := run.Session(context.Background(), p.Groups[0])
	if err != nil {
		t.Fatal(err)
	}
	s.Start(context.Background())
	pids := map[string]map[int]bool{"leaky": {}, "flat": {}}
	for snap := range s.Snapshots() {
		if snap.Target != nil {
			pids[snap.TargetName][snap.Target.PID] = true
		}
		for _, o := range snap.Others {
			if o.ProcSample != nil {
				pids[o.Name][o.PID] = true
			}
		}
	}
	for name, seen := range pids {
		want := run.Running(name).PID()
		if len(seen) != 1 || !seen[want] {
			t.Errorf("%s: snapshots show pids %v, want only %d", name, seen, want)
		}
	}
	st := s.Result().Steps[0]
	leaky, flat, sum := st.Targets["leaky"], st.Targets["flat"], st.TargetsSum
	if leaky == nil || flat == nil || sum == nil || st.Target == nil {
		t.Fatalf("target %+v targets %+v sum %+v", st.Target, st.Targets, sum)
	}
	t.Logf("leaky %.1f→%.1f MB, flat %.1f→%.1f MB, sum end %.1f MB", leaky.RSSMB.Start, leaky.RSSMB.End, flat.RSSMB.Start, flat.RSSMB.End, sum.RSSMB.End)
	if *st.Target != *leaky {
		t.Errorf("target is not the first target's figures:\n%+v\n%+v", *st.Target, *leaky)
	}
	if leaky.RSSMB.End-leaky.RSSMB.Start < 5 || flat.RSSMB.End-flat.RSSMB.Start > 2 {
		t.Errorf("leaky grew %.1f MB, flat %.1f MB: not watched apart", leaky.RSSMB.End-leaky.RSSMB.Start, flat.RSSMB.End-flat.RSSMB.Start)
	}
	// The last samples are of the same round: the sum's end is the ends' sum.
	for _, c := range []struct {
		what      string
		sum, a, b float64
	}{
		{"rss end", sum.RSSMB.End, leaky.RSSMB.End, flat.RSSMB.End},
		{"fds end", sum.FDs.End, leaky.FDs.End, flat.FDs.End},
		{"threads end", sum.Threads.End, leaky.Threads.End, flat.Threads.End},
		{"cpu cores", sum.CPUCores, leaky.CPUCores, flat.CPUCores},
	} {
		if math.Abs(c.sum-(c.a+c.b)) > 0.01+0.01*c.sum {
			t.Errorf("%s: sum %.3f, parts %.3f + %.3f", c.what, c.sum, c.a, c.b)
		}
	}
	if sum.RSSMB.Peak > leaky.RSSMB.Peak+flat.RSSMB.Peak+0.01 || sum.RSSMB.Peak < leaky.RSSMB.Peak {
		t.Errorf("sum peak %.1f outside [%.1f, %.1f]", sum.RSSMB.Peak, leaky.RSSMB.Peak, leaky.RSSMB.Peak+flat.RSSMB.Peak)
	}
	checks := map[string]bool{}
	for _, c := range st.Checks {
		checks[c.Name] = c.OK
	}
	for name, ok := range map[string]bool{"targets.leaky.rss_mb.peak": true, "targets.flat.rss_mb.peak": false, "targets_sum.rss_mb.peak": true} {
		if got, seen := checkNamed(checks, name); !seen || got != ok {
			t.Errorf("check %s: ok %v (seen %v), want %v; checks %+v", name, got, seen, ok, st.Checks)
		}
	}
}

func checkNamed(checks map[string]bool, figure string) (ok, seen bool) {
	for name, ok := range checks {
		if strings.HasPrefix(name, figure) {
			return ok, true
		}
	}
	return false, false
}

// TestPeakCPU: a target that spins one core shows a peak near a core, and
// every target's peak is at least its mean.
func TestPeakCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("samples the targets from /proc: Linux only")
	}
	src := `version: 1
targets:
  busy: {command: ["sh", "-c", "while :; do :; done"], sample: 250ms}
  idle: {command: ["sleep", "60"], sample: 250ms}
groups:
  - id: cpu
    runner: sleep
    target: [busy, idle]
    sleep: {delay: 10ms}
    load: {concurrency: 1}
    duration: 1500ms
`
	p := parseTestPlan(t, "cpu.yaml", src)
	run := NewRun(p, testRegistry, t.TempDir(), "test")
	defer run.Close()
	st := runGroupOf(t, run, p.Groups[0])
	for name, ts := range st.Targets {
		t.Logf("%s: cpu mean %.2f peak %.2f cores", name, ts.CPUCores, ts.CPUCoresPeak)
		if ts.CPUCoresPeak < ts.CPUCores {
			t.Errorf("%s: peak %.2f below mean %.2f", name, ts.CPUCoresPeak, ts.CPUCores)
		}
	}
	// A spinning shell uses a whole core when it gets one. On a machine
	// whose run queue is longer than its CPUs (other builds, burners) it
	// gets a share: then a peak clearly above the idle target's is enough.
	want := 0.5
	if load := loadAverage(); load >= float64(runtime.NumCPU()) {
		t.Logf("load average %.1f on %d CPUs: the busy target gets a share of a core", load, runtime.NumCPU())
		want = 0.05
	}
	if b := st.Targets["busy"]; b == nil || b.CPUCoresPeak < want || b.CPUCoresPeak <= st.Targets["idle"].CPUCoresPeak {
		t.Errorf("busy target: %+v, want a peak above %g cores and the idle target's", b, want)
	}
	if st.TargetsSum == nil || st.TargetsSum.CPUCoresPeak < st.Targets["busy"].CPUCoresPeak-0.01 {
		t.Errorf("sum %+v: peak below the busy target's", st.TargetsSum)
	}
}

// TestAttachedTargetKilled: the second target of a group, attached by
// pid, is killed during the step: the step stops and its event names the
// target and its status, or says the status is unknown.
func TestAttachedTargetKilled(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("attaches through /proc: Linux only")
	}
	victim := exec.Command("sleep", "60")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := make(chan struct{})
	go func() { _ = victim.Wait(); close(reaped) }() // reaps at once: status unknown, mostly
	defer func() { _ = victim.Process.Kill(); <-reaped }()
	src := fmt.Sprintf(`version: 1
targets:
  api: {command: ["sleep", "60"], sample: 100ms}
  db: {pid: %d, sample: 100ms}
groups:
  - id: kill
    runner: sleep
    target: [api, db]
    sleep: {delay: 10ms}
    load: {concurrency: 1}
    duration: 10s
    actions:
      - {at: 500ms, exec: ["kill", "-KILL", "%d"]}
`, victim.Process.Pid, victim.Process.Pid)
	p := parseTestPlan(t, "kill.yaml", src)
	run := NewRun(p, testRegistry, t.TempDir(), "test")
	defer run.Close()
	st := runGroupOf(t, run, p.Groups[0])
	var text string
	for _, e := range st.Events {
		if e.Kind == artifacts.EventTargetExited {
			text = e.Note
		}
	}
	t.Logf("event %q, step %.2fs", text, st.DurationS)
	if !strings.HasPrefix(text, "db ") || !(strings.Contains(text, "status unknown") || strings.Contains(text, "signal killed")) {
		t.Errorf("target_exited event %q: want db and its status or \"status unknown\"", text)
	}
	if st.DurationS > 8 {
		t.Errorf("step ran %.2fs: the second target's exit did not stop it", st.DurationS)
	}
}

// loadAverage is the one-minute load average, 0 when unknown.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var l float64
	fmt.Sscan(string(b), &l)
	return l
}

// TestSoakWatchesNamedTarget: the soak policy watches the target it
// names, here the second (leaking) one, not the flat first. The window
// holds 8 samples of 250 ms, so three late samples on a busy machine
// still leave the 5 a slope needs (with 6, a busy suite once left no
// slope and no extension).
func TestSoakWatchesNamedTarget(t *testing.T) {
	p, run := leakyAndFlat(t, "soak.yaml", `  - id: named
    runner: sleep
    target: [flat, leaky]
    sleep: {delay: 10ms}
    load: {concurrency: 1}
    duration: 3s
    soak: {extend_while_rss_rising: {slope_mb_per_min: 1.0, window: 2s, step: 500ms, max: 3500ms, target: leaky}}
  - id: first
    runner: sleep
    target: [flat, leaky]
    sleep: {delay: 10ms}
    load: {concurrency: 1}
    duration: 3s
    soak: {extend_while_rss_rising: {slope_mb_per_min: 1.0, window: 2s, step: 500ms, max: 3500ms}}
`)
	named := runGroupOf(t, run, p.Groups[0])
	if n := countEvents(named, artifacts.EventExtended); n != 1 {
		t.Errorf("soak on leaky: %d extensions, want 1 (to the 3.5s max); events %+v", n, named.Events)
	}
	for _, e := range named.Events {
		if e.Kind == artifacts.EventExtended && !strings.Contains(e.Note, "leaky RSS rising") {
			t.Errorf("extension %q does not name the soak's target", e.Note)
		}
	}
	first := runGroupOf(t, run, p.Groups[1])
	if n := countEvents(first, artifacts.EventExtended); n != 0 {
		t.Errorf("soak on the flat first target: %d extensions, want none", n)
	}
}

// leakyAndFlat parses a plan of groups over two spawned targets, leaky
// (retaining 1 MiB every 100 ms) and flat, and returns it with a run that
// is closed when the test ends; Linux only.
func leakyAndFlat(t *testing.T, name, groups string) (*plan.Plan, *Run) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("samples the targets from /proc: Linux only")
	}
	bin := testbin.Build(t, "../watch/testdata/leaky")
	p := parseTestPlan(t, name, fmt.Sprintf(`version: 1
targets:
  leaky: {command: [%[1]q, "-leak-mb", "1", "-every", "100ms"], sample: 250ms, ready: "stdout:/ready/"}
  flat: {command: [%[1]q], sample: 250ms, ready: "stdout:/ready/"}
groups:
`, bin)+groups)
	run := NewRun(p, testRegistry, t.TempDir(), "test")
	t.Cleanup(func() { run.Close() })
	return p, run
}
