package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
	"github.com/benchtui/benchtui/runners/pgload/pgtest"
	"github.com/benchtui/benchtui/runners/runnertest"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// writePlan writes a plan with a closed-loop and an open-loop group
// against url, with extra appended to the closed-loop group.
func writePlan(t *testing.T, url, extra string) string {
	t.Helper()
	plan := fmt.Sprintf(`version: 1
groups:
  - id: closed
    runner: http
    http: {requests: [{url: "%[1]s/c"}]}
    load: {concurrency: 4}
    duration: 1s
%[2]s
  - id: open
    runner: http
    http: {requests: [{url: "%[1]s/o"}]}
    load: {rate: 50, max_in_flight: 10}
    duration: 1s
`, url, extra)
	return writePlanText(t, plan)
}

// writePlanText writes plan to a plan.yaml in a folder of the test and
// returns its path.
func writePlanText(t *testing.T, plan string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func loadArtifacts(t *testing.T, dir string) map[string]*artifacts.Artifact {
	t.Helper()
	return artifactstest.LoadDir(t, dir)
}

func TestRunWritesArtifactsThatAgreeWithTheServer(t *testing.T) {
	t.Parallel()
	srv, served := runnertest.CountingServer(t, 2*time.Millisecond)
	out := t.TempDir()
	code, stdout, stderr := runCmd(t, cmdRun, writePlan(t, srv.URL, ""), "-o", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	arts := loadArtifacts(t, out)
	closed, open := arts["closed"], arts["open"]
	if closed == nil || open == nil {
		t.Fatalf("artifacts: %v", arts)
	}
	total := closed.Steps[0].Requests + open.Steps[0].Requests
	if total != served.Load() {
		t.Errorf("artifacts count %d requests, the server served %d", total, served.Load())
	}
	// The window is 1 s plus up to a tick when the machine is busy: judge
	// the arrivals against the window the step measured, not against 1 s.
	if o := open.Steps[0]; math.Abs(float64(o.Requests+o.Dropped)-50*o.DurationS) > 2 || o.LatencyMS.P50 < 2 {
		t.Errorf("open loop: %d requests, %d dropped over %.3fs, p50 %.2fms; want 50/s of the window, p50 >= the server's 2ms",
			o.Requests, o.Dropped, o.DurationS, o.LatencyMS.P50)
	}
	for _, want := range []string{"closed", "open", "rate=50", "p99 ms"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "closed step 1/1") {
		t.Errorf("no progress lines on stderr:\n%s", stderr)
	}
}

// TestRunFailedThresholdExits1: against a server that answers in 5 ms,
// thresholds p50 and p95 (the fixed key read from the histogram) of 1 ms
// fail, and run exits 1.
func TestRunFailedThresholdExits1(t *testing.T) {
	t.Parallel()
	srv, _ := runnertest.CountingServer(t, 5*time.Millisecond)
	for _, key := range []string{"p50", "p95"} {
		plan := writePlan(t, srv.URL, "    thresholds: {"+key+": 1ms}")
		code, stdout, _ := runCmd(t, cmdRun, plan, "-o", t.TempDir(), "-g", "closed")
		if code != exitFail || !strings.Contains(stdout, "FAIL "+key+" <= 1ms: was ") {
			t.Errorf("%s: exit %d, want 1 with a failed check:\n%s", key, code, stdout)
		}
	}
}

func TestBadPlansExit2NamingThePlace(t *testing.T) {
	t.Parallel()
	plan := writePlan(t, "http://127.0.0.1:1", "    concurency: 4")
	for _, cmd := range []command{cmdRun, cmdValidate} {
		code, _, stderr := runCmd(t, cmd, plan)
		if code != exitUsage || !strings.Contains(stderr, plan+":8:5: groups[0].concurency: unknown key") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	}
	code, stdout, _ := runCmd(t, cmdValidate, writePlan(t, "http://127.0.0.1:1", ""))
	if code != exitOK || !strings.Contains(stdout, "ok") || !strings.Contains(stdout, "2 groups") {
		t.Errorf("validate of a good plan: exit %d, %q", code, stdout)
	}
	if code, _, _ := runCmd(t, cmdRun, "--nope"); code != exitUsage {
		t.Errorf("bad flag: exit %d", code)
	}
}

func TestRunBaselineFoldsVerdictIntoExitCode(t *testing.T) {
	fast, _ := runnertest.CountingServer(t, time.Millisecond)
	base := t.TempDir()
	// Blocks of one tick (250 ms): 3 s give 12 samples a side. A block
	// closes at the tick that completes it, so late ticks make fewer: at
	// load 23, half-second blocks gave 4 and 3, and 4+3 samples cannot
	// reach p < 0.05 (the U test's least p there is 2/35).
	if code, _, stderr := runCmd(t, cmdRun, writePlan(t, fast.URL, "    block: 250ms"), "-o", base, "-g", "closed", "--duration", "3s"); code != exitOK {
		t.Fatalf("baseline run: exit %d\n%s", code, stderr)
	}
	// 50 ms: a server 50x slower, its latency well above the scheduling
	// delays of a busy machine (8 ms was judged ~ at load 14: both sides'
	// p50 were mostly those delays).
	slow, _ := runnertest.CountingServer(t, 50*time.Millisecond)
	code, stdout, _ := runCmd(t, cmdRun, writePlan(t, slow.URL, "    block: 250ms"), "-o", t.TempDir(), "-g", "closed", "--duration", "3s", "--baseline", base)
	if code != exitFail || !strings.Contains(stdout, "worse") {
		t.Errorf("a server 50x slower: exit %d, want 1 with worse rows:\n%s", code, stdout)
	}
}

// TestSameServerTwiceIsNoRegression: two runs of an unchanged server,
// four 1 s blocks a side (the setting bench/verdict-rates.sh measured: 0
// of 30 such pairs called a change), compare ~ on every row and exit 0.
// The server takes 100 ms, so that the scheduling delays of a busy
// machine (~10 ms when other tests start beside this one) stay well
// under the 20% a block's max needs to be judged worse. The two runs go
// at once: run one after the other in a busy suite, the second met a
// busier machine (p50 104 then 118 ms, judged worse, rightly, on
// p=0.029): the machine changed, not the server.
func TestSameServerTwiceIsNoRegression(t *testing.T) {
	srv, _ := runnertest.CountingServer(t, 100*time.Millisecond)
	args := []string{"-g", "closed", "--duration", "4s"}
	plans, dirs := [2]string{writePlan(t, srv.URL, ""), writePlan(t, srv.URL, "")}, [2]string{t.TempDir(), t.TempDir()}
	var codes [2]int
	var stderrs [2]string
	var wg sync.WaitGroup
	for i := range dirs {
		wg.Go(func() {
			codes[i], _, stderrs[i] = runCmd(t, cmdRun, append([]string{plans[i], "-o", dirs[i]}, args...)...)
		})
	}
	wg.Wait()
	for i, code := range codes {
		if code != exitOK {
			t.Fatalf("run %d: exit %d\n%s", i, code, stderrs[i])
		}
	}
	code, stdout, _ := runCmd(t, cmdCompare, dirs[0], dirs[1])
	// 4 s give four 1 s blocks a side; a clock tick late on a busy machine
	// makes one block longer and the step's blocks three, and a step that
	// overran its 4 s (the window closes at the tick that sees its end)
	// five (n=3+5 at load 14), or six beside two burners (n=6+4).
	if code != exitOK || strings.Contains(stdout, "worse") || !regexp.MustCompile(`n=[3-6](\+[3-6])? blocks of 1s`).MatchString(stdout) {
		t.Errorf("the same server twice: exit %d, want 0 with every row ~ on 3 to 6 blocks a side:\n%s", code, stdout)
	}
	if strings.Contains(stdout, "config differs") {
		t.Errorf("the same plan twice warned that its config differs:\n%s", stdout)
	}
}

// TestCountOfFiveCatchesTwentyMilliseconds: five runs a side (run
// --count 5) judge a server 20 ms slower worse on its runs, exit 1.
func TestCountOfFiveCatchesTwentyMilliseconds(t *testing.T) {
	fast, _ := runnertest.CountingServer(t, 2*time.Millisecond)
	base := t.TempDir()
	// Runs of 1 s: of 0.5 s, a loaded machine once made one base run's p50
	// as slow as the slow server's (p=0.079 over 5 runs a side).
	args := []string{"-g", "closed", "--duration", "1s", "--count", "5"}
	if code, _, stderr := runCmd(t, cmdRun, append([]string{writePlan(t, fast.URL, ""), "-o", base}, args...)...); code != exitOK {
		t.Fatalf("baseline run: exit %d\n%s", code, stderr)
	}
	slow, _ := runnertest.CountingServer(t, 22*time.Millisecond)
	code, stdout, _ := runCmd(t, cmdRun, append([]string{writePlan(t, slow.URL, ""), "-o", t.TempDir(), "--baseline", base}, args...)...)
	if code != exitFail || !strings.Contains(stdout, "worse") || !strings.Contains(stdout, "n=5 runs") {
		t.Errorf("a server 20 ms slower, 5 runs a side: exit %d, want 1 with worse rows on 5 runs:\n%s", code, stdout)
	}
}

// TestMain runs 4 tests at once unless -parallel says otherwise: most
// wait on the binary, tmux and servers that sleep. The tests that judge
// time, rates or statistics, or look for processes across the machine,
// do not call t.Parallel: they run first, alone in the package. It also
// removes the binaries the tests built.
func TestMain(m *testing.M) {
	testbin.DefaultParallel(4)
	testbin.Exit(pgtest.Run(m))
}

// benchtuiBinary builds the real binary once per test run.
func benchtuiBinary(t *testing.T) string {
	t.Helper()
	return testbin.Build(t, ".")
}
