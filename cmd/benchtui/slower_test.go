package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// slowerPlan is a plan whose target is the demo target, its CPU profiled
// over each 2 s window, /work burning slowPath of CPU in
// demo.slowPath (0: none).
func slowerPlan(t *testing.T, bin, addr, slowPath string) string {
	return writePlanText(t, fmt.Sprintf(`version: 1
targets:
  api:
    command: [%[1]q, "demo-target", "--http", %[2]q, "--slow-path", %[3]q]
    ready: http://%[2]s/healthz
    pprof: {url: "http://%[2]s/debug/pprof/heap", at: [end], cpu: true}
groups:
  - id: work
    runner: http
    target: api
    http: {requests: [{url: "http://%[2]s/work?ms=0"}]}
    load: {rate: 100, max_in_flight: 20}
    duration: 2s
`, bin, addr, slowPath))
}

// TestWhatGotSlowerNamesTheSlowFunction: the demo target run once as it
// is (headless), then with /work burning 3 ms of CPU per request in
// demo.slowPath (from the console, the real binary under tmux; headless
// without tmux); each run saves a CPU profile of its window beside its
// artifact. The console's w, then the report of the two, head "what got
// slower" with demo.slowPath.
func TestWhatGotSlowerNamesTheSlowFunction(t *testing.T) {
	t.Parallel()
	bin := benchtuiBinary(t)
	addr, err := freeLoopbackAddr("tcp")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if code, stdout, stderr := runCmd(t, cmdRun, slowerPlan(t, bin, addr, "0"), "-o", dir); code != exitOK {
		t.Fatalf("run: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	slowed := slowerPlan(t, bin, addr, "3ms")
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Logf("no tmux (%v): the slowed run is headless, the console's w is not tried", err)
		if code, stdout, stderr := runCmd(t, cmdRun, slowed, "-o", dir); code != exitOK {
			t.Fatalf("run --slow-path 3ms: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
	} else {
		slowerInConsole(t, slowed, dir)
	}
	if cpu, _ := filepath.Glob(filepath.Join(dir, "work-*-step1-run1-cpu.pb.gz")); len(cpu) != 2 {
		t.Fatalf("CPU profiles beside the artifacts: %v, want 2", cpu)
	}
	code, report, stderr := runCmd(t, cmdReport, dir)
	if code != exitOK {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	_, table, _ := strings.Cut(report, "### What got slower")
	t.Logf("what got slower%s", table)
	if top := firstRowAfter(report, "### What got slower"); !strings.HasPrefix(top, "| demo.slowPath ") {
		t.Errorf("what got slower is headed by %q, want demo.slowPath:\n%s", top, report)
	}
}

// slowerInConsole runs the plan's group from the console (enter), waits
// for its artifact, and checks that w heads what got slower with
// demo.slowPath; then quits.
func slowerInConsole(t *testing.T, planFile, dir string) {
	c := startConsole(t, "slower", t.TempDir(), planFile+" -o "+dir, 100, 30)
	c.waitFor("the group", `work\s+(idle|✓ pass)`)
	c.send("Enter")
	c.waitFor("the run's artifact", `work: artifact `)
	c.send("w")
	c.waitFor("what got slower, demo.slowPath first", `What got slower in work`, `function \(CPU share\)[^\n]*\n\s*demo\.slowPath\s`,
		`↑/↓ scroll esc back n note / find`)
	c.send("Escape")
	c.send("q")
	c.waitFor("the console's exit", `exit=0`)
}

// firstRowAfter is the first row of the markdown table under the heading
// title: the line after its header and separator.
func firstRowAfter(doc, title string) string {
	_, rest, ok := strings.Cut(doc, title)
	if !ok {
		return ""
	}
	var rows []string
	for _, line := range strings.Split(rest, "\n") {
		if strings.HasPrefix(line, "|") {
			rows = append(rows, line)
		} else if len(rows) > 0 {
			break
		}
	}
	if len(rows) < 3 {
		return ""
	}
	return rows[2]
}
