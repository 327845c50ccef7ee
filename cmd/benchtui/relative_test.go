package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// relativeServer answers /delay?ms=N after N ms and /half with a 500 to
// every other request; it counts what it served.
func relativeServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var served, half atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		switch r.URL.Path {
		case "/delay":
			ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
			time.Sleep(time.Duration(min(ms, 1000)) * time.Millisecond)
		case "/half":
			if half.Add(1)%2 == 0 {
				w.WriteHeader(http.StatusInternalServerError)
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &served
}

// relativePlan: arm-a sweeps concurrency 1 → 4 against a 15 ms route
// (the server sleeps, so four workers serve nearly four times as many on a
// starved machine too) and wants each step's rps at least rising times the
// previous one's; arm-b
// (delay bMS) wants its p50 at most 3 × arm-a's; open sends 100/s to
// openPath and wants ok_rps at least 0.65 × offered_rps (half the
// replies 500 fail it; a busy machine's generator dropping a fifth of
// its arrivals does not).
func relativePlan(t *testing.T, url string, rising float64, bMS int, openPath string) string {
	t.Helper()
	return writePlanText(t, fmt.Sprintf(`version: 1
groups:
  - id: arm-a
    runner: http
    http: {requests: [{url: "%[1]s/delay?ms=15"}]}
    sweep: {concurrency: [1, 4]}
    duration: 1500ms
    block: 250ms
    thresholds:
      checks:
        - {figure: rps, ">=": {figure: rps, step: previous, times: %[2]v}}
  - id: arm-b
    runner: http
    http: {requests: [{url: "%[1]s/delay?ms=%[3]d"}]}
    sweep: {concurrency: [1]}
    duration: 1500ms
    block: 250ms
    thresholds:
      checks:
        - {figure: p50, "<=": {figure: p50, group: arm-a, times: 3}}
  - id: open
    runner: http
    http: {requests: [{url: "%[1]s/%[4]s"}]}
    load: {rate: 100, max_in_flight: 20}
    duration: 1s
    thresholds:
      checks:
        - {figure: ok_rps, ">=": {figure: offered_rps, times: 0.65}}
`, url, rising, bMS, openPath))
}

// runRelative runs plan into a new folder and wants exit code; it returns
// the folder and run's stdout.
func runRelative(t *testing.T, plan string, code int, args ...string) (string, string) {
	t.Helper()
	out := t.TempDir()
	got, stdout, stderr := runCmd(t, cmdRun, append([]string{plan, "-o", out}, args...)...)
	if got != code {
		t.Fatalf("exit %d, want %d\n%s\n%s", got, code, stdout, stderr)
	}
	return out, stdout
}

// relativeCheck is the one check of a group's step n (from 1).
func relativeCheck(t *testing.T, a *artifacts.Artifact, n int) artifacts.Check {
	t.Helper()
	if a == nil || len(a.Steps) < n || len(a.Steps[n-1].Checks) != 1 {
		t.Fatalf("artifact %+v: want a step %d with one check", a, n)
	}
	return a.Steps[n-1].Checks[0]
}

// near: the limit a check shows is factor × the figure of the step it
// refers to, as the artifacts hold them.
func near(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }

// Real runs judge each kind of relative check: another figure of the same
// step, the previous step of the group, and another group of the run.
// Each passes where the servers make it hold and fails where they do not,
// by wide margins (a 15 ms against a 100 ms route; 4 workers against 1 on
// a sleeping route; half the replies 500); the limits each check states
// are the factor times the figure of the step it names. Serial: 4
// tests at once beside a busy suite slowed the test's own server so much
// that 4 workers made only 1.95 times the rps of 1.
func TestRelativeChecksRun(t *testing.T) {
	srv, served := relativeServer(t)
	for _, c := range []struct {
		name     string
		rising   float64
		bMS      int
		openPath string
		code     int
	}{
		{"pass", 2, 5, "delay?ms=1", exitOK},
		{"fail", 20, 100, "half", exitFail},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := served.Load()
			out, stdout := runRelative(t, relativePlan(t, srv.URL, c.rising, c.bMS, c.openPath), c.code)
			arts := loadArtifacts(t, out)
			var requests int64
			for _, a := range arts {
				for _, s := range a.Steps {
					requests += s.Requests
				}
			}
			if got := served.Load() - before; got != requests {
				t.Errorf("the server served %d, the artifacts count %d", got, requests)
			}
			ok := c.code == exitOK
			a, b, o := arts["arm-a"], arts["arm-b"], arts["open"]
			rise := relativeCheck(t, a, 2)
			if len(a.Steps[0].Checks) != 0 {
				t.Errorf("step 1 has no previous step, yet checks %+v", a.Steps[0].Checks)
			}
			arm := relativeCheck(t, b, 1)
			offered := relativeCheck(t, o, 1)
			for _, k := range []struct {
				c            artifacts.Check
				name         string
				value, limit float64
				unit         string
				wantOK       bool
			}{
				{rise, fmt.Sprintf("rps >= %v × previous step's rps", c.rising), a.Steps[1].ThroughputRPS, c.rising * a.Steps[0].ThroughputRPS, "", ok},
				{arm, "p50 <= 3 × arm-a p50", b.Steps[0].LatencyMS.P50, 3 * a.Steps[0].LatencyMS.P50, "ms", ok},
				{offered, "ok_rps >= 0.65 × offered_rps", o.Steps[0].OKRPS, 0.65 * o.Steps[0].OfferedRPS, "", ok},
			} {
				t.Logf("%s: %v, limits %v", k.c.Name, k.c.Value, k.c.Limits)
				if k.c.Name != k.name || k.c.OK != k.wantOK || k.c.Unit != k.unit || len(k.c.Limits) != 1 ||
					!near(k.c.Value, k.value) || !near(k.c.Limits[0], k.limit) {
					t.Errorf("check %+v, want %s ok=%v value %v limit %v %s", k.c, k.name, k.wantOK, k.value, k.limit, k.unit)
				}
				mark := map[bool]string{true: "check ok   " + k.name + ": ", false: "check FAIL " + k.name + ": was "}[k.wantOK]
				if !strings.Contains(stdout, mark) || !strings.Contains(stdout, ", limit ") {
					t.Errorf("stdout lacks %q:\n%s", mark, stdout)
				}
			}
			if !ok && !strings.Contains(stdout, fmt.Sprintf("p50 <= 3 × arm-a p50: was %s, limit %s", artifacts.CheckValue(arm), artifacts.CheckValue(artifacts.Check{Value: arm.Limits[0], Unit: "ms"}))) {
				t.Errorf("stdout lacks the failed arm check with both sides:\n%s", stdout)
			}
			if ok {
				return
			}
			// arm-b is 6 times as slow as arm-a: compare --pair on the
			// run's folder judges it worse, as it judges two runs.
			code, cmp, cmpErr := runCmd(t, cmdCompare, "--pair", "arm-a=arm-b", out)
			if code != exitFail || !strings.Contains(cmp, "arm-b vs arm-a") || !strings.Contains(cmp, "worse") {
				t.Errorf("compare --pair: exit %d\n%s\n%s", code, cmp, cmpErr)
			}
			code, plain, _ := runCmd(t, cmdCompare, out, out)
			if code != exitOK || strings.Contains(plain, "worse") {
				t.Errorf("compare of the run with itself: exit %d\n%s", code, plain)
			}
		})
	}
}

// A run of a subset that leaves out the group a check refers to fails
// that check, saying so: it never passes.
func TestRelativeCheckMissingGroup(t *testing.T) {
	t.Parallel()
	srv, _ := relativeServer(t)
	out, stdout := runRelative(t, relativePlan(t, srv.URL, 2, 5, "delay?ms=1"), exitFail, "-g", "arm-b")
	c := relativeCheck(t, loadArtifacts(t, out)["arm-b"], 1)
	want := "group arm-a has not run in this run"
	if c.OK || !strings.Contains(c.Note, want) || !strings.Contains(stdout, "check FAIL p50 <= 3 × arm-a p50: "+want) {
		t.Errorf("check %+v; stdout:\n%s", c, stdout)
	}
}

// compare --pair A=B/LOAD judges one load of a loads: group against
// another group of the same run, on that load's own samples, and a check
// of the loads group refers to the other group's figures.
func TestComparePairLoad(t *testing.T) {
	srv, _ := relativeServer(t)
	plan := writePlanText(t, fmt.Sprintf(`version: 1
groups:
  - id: alone
    runner: http
    http: {requests: [{name: work, url: "%[1]s/delay?ms=5"}]}
    load: {concurrency: 1}
    duration: 2500ms
    block: 250ms
  - id: beside
    loads:
      - name: main
        runner: http
        http: {requests: [{name: work, url: "%[1]s/delay?ms=40"}]}
        load: {concurrency: 1}
      - name: side
        runner: http
        http: {requests: [{url: "%[1]s/delay?ms=1"}]}
        load: {concurrency: 1}
    duration: 2500ms
    block: 250ms
    thresholds:
      checks:
        - {figure: by_name.main.p50, ">=": {figure: p50, group: alone, times: 3}}
`, srv.URL))
	out, _ := runRelative(t, plan, exitOK)
	arts := loadArtifacts(t, out)
	c := relativeCheck(t, arts["beside"], 1)
	if main := arts["beside"].Steps[0].ByName["main"]; !c.OK || c.Value != main.LatencyMS.P50 || !near(c.Limits[0], 3*arts["alone"].Steps[0].LatencyMS.P50) {
		t.Errorf("check %+v; main's p50 %v, alone's %v", c, main.LatencyMS.P50, arts["alone"].Steps[0].LatencyMS.P50)
	}
	code, cmp, cmpErr := runCmd(t, cmdCompare, "--pair", "alone=beside/main", out, "--format", "json")
	if code != exitFail {
		t.Fatalf("compare --pair alone=beside/main: exit %d\n%s\n%s", code, cmp, cmpErr)
	}
	// main's rows are its own (8 times alone's p50), and its request
	// main/work is judged as alone's work.
	for _, want := range []string{`"group": "beside/main vs alone"`, `"metric": "p50"`, `"metric": "p50[work]"`, `"verdict": "worse"`} {
		if !strings.Contains(cmp, want) {
			t.Errorf("compare lacks %s:\n%s", want, cmp)
		}
	}
	code, _, cmpErr = runCmd(t, cmdCompare, "--pair", "alone=beside/nope", out)
	if code != exitUsage || !strings.Contains(cmpErr, `pair alone=beside/nope: current: group beside step run: no load "nope" (has: main, side)`) {
		t.Errorf("a load the group lacks: exit %d\n%s", code, cmpErr)
	}
	code, _, cmpErr = runCmd(t, cmdCompare, "--pair", "gone=beside", out)
	if code != exitUsage || !strings.Contains(cmpErr, `pair gone=beside: base: no artifact of group "gone" (groups: alone, beside)`) {
		t.Errorf("a group the run lacks: exit %d\n%s", code, cmpErr)
	}
	code, _, cmpErr = runCmd(t, cmdCompare, "--pair", "alone", out)
	if code != exitUsage || !strings.Contains(cmpErr, "want BASE=CURRENT") {
		t.Errorf("--pair alone: exit %d, %s", code, cmpErr)
	}
}

// `merge` judges relative checks again on the merged figures, merging a
// group after the group its checks refer to whatever the inputs' order
// (a-slow's artifacts sort before z-fast's): two shards each run both
// groups, a-slow (120 ms) against z-fast (5 ms). A busy suite made the
// fast group's p50 21 ms, so a slow group of 40 ms passed its check.
func TestMergeJudgesRelativeChecks(t *testing.T) {
	srv, served := relativeServer(t)
	path := writePlanText(t, fmt.Sprintf(`version: 1
groups:
  - id: z-fast
    runner: http
    http: {requests: [{url: "%[1]s/delay?ms=5"}]}
    load: {concurrency: 2}
    duration: 1s
  - id: a-slow
    runner: http
    http: {requests: [{url: "%[1]s/delay?ms=120"}]}
    load: {concurrency: 2}
    duration: 1s
    thresholds:
      checks:
        - {figure: p50, "<=": {figure: p50, group: z-fast, times: 3}}
        - {figure: requests, "<=": {figure: requests, group: z-fast}}
`, srv.URL))
	benchtuiBinary(t)
	start := shardStartAt()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	before := served.Load()
	dirs := []string{t.TempDir(), t.TempDir()}
	var kids []*child
	for i, dir := range dirs {
		kids = append(kids, startBinaryTo(t, ctx, io.Discard, "run", path, "--shard", fmt.Sprintf("%d/2", i), "--run-id", "r-rel", "--start-at", start, "--start-tolerance", testStartTolerance, "-o", dir))
	}
	for i, c := range kids {
		if code := c.wait(); code != exitOK && code != exitFail {
			t.Fatalf("shard %d: exit %d\n%s", i, code, c.stderr.String())
		}
	}
	out := t.TempDir()
	code, stdout, stderr := runCmd(t, cmdMerge, dirs[0], dirs[1], "-o", out)
	if code != exitFail {
		t.Fatalf("merge: exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	arts := loadArtifacts(t, out)
	fast, slow := arts["z-fast"], arts["a-slow"]
	if fast == nil || slow == nil || len(slow.Steps) != 1 {
		t.Fatalf("merged %v", arts)
	}
	if got := served.Load() - before; got != fast.Steps[0].Requests+slow.Steps[0].Requests {
		t.Errorf("the server served %d, the merged artifacts count %d + %d", got, fast.Steps[0].Requests, slow.Steps[0].Requests)
	}
	var p50, req *artifacts.Check
	for i, c := range slow.Steps[0].Checks {
		switch c.Name {
		case "p50 <= 3 × z-fast p50":
			p50 = &slow.Steps[0].Checks[i]
		case "requests <= z-fast requests":
			req = &slow.Steps[0].Checks[i]
		case "shard 0: p50 <= 3 × z-fast p50", "shard 1: p50 <= 3 × z-fast p50":
			t.Errorf("a shard's own relative check is kept: %+v", c)
		}
	}
	if p50 == nil || p50.OK || len(p50.Limits) != 1 || p50.Value != slow.Steps[0].LatencyMS.P50 || !near(p50.Limits[0], 3*fast.Steps[0].LatencyMS.P50) {
		t.Errorf("merged p50 check %+v; slow p50 %v, fast p50 %v", p50, slow.Steps[0].LatencyMS.P50, fast.Steps[0].LatencyMS.P50)
	}
	if req == nil || !req.OK || len(req.Limits) != 1 || req.Value != float64(slow.Steps[0].Requests) || req.Limits[0] != float64(fast.Steps[0].Requests) {
		t.Errorf("merged requests check %+v; slow %d, fast %d", req, slow.Steps[0].Requests, fast.Steps[0].Requests)
	}
}
