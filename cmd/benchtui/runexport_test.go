package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/joshdk/go-junit"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
	"github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// exportArgs are the four export flags, writing into dir.
func exportArgs(dir string) []string {
	return []string{"--export-json", filepath.Join(dir, "run.json"), "--export-csv", filepath.Join(dir, "run.csv"),
		"--export-markdown", filepath.Join(dir, "run.md"), "--junit", filepath.Join(dir, "junit.xml")}
}

// checksPlan is writePlan with two checks on the closed-loop group, one
// that fails (a million requests per second) and one that holds.
func checksPlan(t *testing.T, url string) string {
	return writePlan(t, url, "    thresholds: {p99: 10s, min_rps: 1000000}")
}

// TestRunExportsForCI runs the real binary against a loopback server with
// all four export files and --format json on stdout: the JSON file is
// stdout byte for byte, the CSV has a row per step, the markdown says how
// the run ended, and a JUnit parser reads one testsuite per group whose
// testcases are the run and every check, failures where checks failed.
func TestRunExportsForCI(t *testing.T) {
	t.Parallel()
	srv, _ := runnertest.CountingServer(t, time.Millisecond)
	dir, out := t.TempDir(), t.TempDir()
	args := append([]string{"run", checksPlan(t, srv.URL), "-o", out, "--duration", "500ms", "--format", "json"}, exportArgs(dir)...)
	var stdout bytes.Buffer
	c := startBinaryTo(t, context.Background(), &stdout, args...)
	if code := c.wait(); code != exitFail {
		t.Fatalf("a run with a failed check: exit %d, want 1\n%s", code, c.stderr.String())
	}
	if got := readFile(t, filepath.Join(dir, "run.json")); got != stdout.String() || !strings.Contains(got, `"status": "fail"`) {
		t.Errorf("--export-json differs from --format json's stdout:\n%s\nstdout:\n%s", got, stdout.String())
	}
	if rows, err := csv.NewReader(strings.NewReader(readFile(t, filepath.Join(dir, "run.csv")))).ReadAll(); err != nil || len(rows) != 3 {
		t.Errorf("--export-csv: %d rows, %v; want a header and a row per group", len(rows), err)
	}
	md := readFile(t, filepath.Join(dir, "run.md"))
	for _, want := range []string{"benchtui run: **fail** (exit 1)", "# benchtui report", "closed", "open"} {
		if !strings.Contains(md, want) {
			t.Errorf("--export-markdown has no %q:\n%s", want, md)
		}
	}
	checkJUnit(t, filepath.Join(dir, "junit.xml"), loadArtifacts(t, out), false)
}

// checkJUnit parses path with go-junit and checks it against the
// artifacts by group: one suite each, a "run" case (an error when the
// run was stopped, if partial) and a case per check, failed as the
// check failed; the counts the file declares are those go-junit counts.
func checkJUnit(t *testing.T, path string, arts map[string]*artifacts.Artifact, partial bool) {
	t.Helper()
	suites, err := junit.IngestFile(path)
	if err != nil || len(suites) != len(arts) {
		t.Fatalf("junit: %d suites, %v; want one per group (%d)\n%s", len(suites), err, len(arts), readFile(t, path))
	}
	for _, s := range suites {
		a := arts[s.Name]
		if a == nil {
			t.Fatalf("junit suite %q: no such group", s.Name)
		}
		checks, failed := 0, 0
		for _, st := range a.Steps {
			for _, ch := range st.Checks {
				checks++
				if !ch.OK {
					failed++
				}
			}
		}
		tot := s.Totals
		wantErrors := map[bool]int{true: 1}[partial]
		if tot.Tests != checks+1 || tot.Failed != failed || tot.Error != wantErrors || s.Tests[0].Name != junitRunCase {
			t.Errorf("suite %s: %d tests, %d failed, %d errors, first %q; want the run and %d checks, %d failed, %d errors",
				s.Name, tot.Tests, tot.Failed, tot.Error, s.Tests[0].Name, checks, failed, wantErrors)
		}
		declared := []string{s.Properties["tests"], s.Properties["failures"], s.Properties["errors"]}
		counted := []string{strconv.Itoa(tot.Tests), strconv.Itoa(tot.Failed), strconv.Itoa(tot.Error)}
		if strings.Join(declared, " ") != strings.Join(counted, " ") {
			t.Errorf("suite %s declares tests, failures, errors %v, has %v", s.Name, declared, counted)
		}
		for _, tc := range s.Tests {
			if tc.Status == junit.StatusFailed && (!strings.Contains(tc.Message, ": was ") || !strings.Contains(tc.Error.Error(), "measured: ")) {
				t.Errorf("failed case %q: message %q, want the check's line and its measured value (%v)", tc.Name, tc.Message, tc.Error)
			}
		}
	}
}

// TestExportsWrittenWhenInterrupted: a run stopped by one SIGINT, and
// one quit at once by a second while the first still waits for requests
// in flight (the server stops answering), still writes every export file:
// status interrupted, the partial group's figures and checks, the JUnit
// run case an error. Serial: it judges how soon the second SIGINT quits.
func TestExportsWrittenWhenInterrupted(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sends Unix signals")
	}
	for _, n := range []int{1, 2} {
		t.Run(strconv.Itoa(n)+" SIGINT", func(t *testing.T) {
			url, served, hang := hangingServer(t)
			dir, out := t.TempDir(), t.TempDir()
			args := append([]string{"run", checksPlan(t, url), "-o", out, "-g", "closed", "--duration", "30s"}, exportArgs(dir)...)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c := startBinary(t, ctx, args...)
			waitServed(t, served, 0, 200, 10*time.Second, c)
			hang.Store(true)
			time.Sleep(50 * time.Millisecond)
			start := time.Now()
			for range n {
				c.cmd.Process.Signal(syscall.SIGINT)
				time.Sleep(200 * time.Millisecond)
			}
			code := c.wait()
			took := time.Since(start)
			if code != exitFail || ctx.Err() != nil {
				t.Fatalf("exit %d (%v), want 1\n%s", code, ctx.Err(), c.stderr.String())
			}
			// The first SIGINT waits 2 s for the requests in flight, the
			// second quits at once.
			t.Logf("%d SIGINT: exit %d after %s", n, code, took.Round(time.Millisecond))
			if n == 2 && took > 1500*time.Millisecond {
				t.Errorf("the second SIGINT took %s to quit: it did not quit at once", took)
			}
			if js := readFile(t, filepath.Join(dir, "run.json")); !strings.Contains(js, `"status": "interrupted"`) || !strings.Contains(js, `"partial": true`) {
				t.Errorf("--export-json of an interrupted run:\n%s", js)
			}
			if md := readFile(t, filepath.Join(dir, "run.md")); !strings.Contains(md, "**interrupted**") {
				t.Errorf("--export-markdown of an interrupted run:\n%s", md)
			}
			if rows, err := csv.NewReader(strings.NewReader(readFile(t, filepath.Join(dir, "run.csv")))).ReadAll(); err != nil || len(rows) != 2 {
				t.Errorf("--export-csv: %d rows, %v; want a header and the stopped step", len(rows), err)
			}
			checkJUnit(t, filepath.Join(dir, "junit.xml"), loadArtifacts(t, out), true)
		})
	}
}

// hangingServer is a loopback HTTP server that answers at once and counts
// its answers until hang is set; then it holds every request until the
// client goes (10 s at most).
func hangingServer(t *testing.T) (string, *atomic.Int64, *atomic.Bool) {
	t.Helper()
	var served atomic.Int64
	var hang atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		if hang.Load() {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return
		}
		served.Add(1)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &served, &hang
}

// TestExportToAFolderRefused: an export file that could not be written at
// the end (a folder stands there) is a usage error before anything runs.
func TestExportToAFolderRefused(t *testing.T) {
	t.Parallel()
	plan := writePlanText(t, "version: 1\ngroups: []\n")
	code, _, stderr := runCmd(t, cmdRun, plan, "-o", t.TempDir(), "--junit", t.TempDir())
	if code != exitUsage || !strings.Contains(stderr, "--junit") || !strings.Contains(stderr, "not a regular file") {
		t.Errorf("--junit FOLDER: exit %d, stderr %q; want 2 naming the flag", code, stderr)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestJUnitBaselineCases: with a baseline, each step has a case of its
// own, failed with the figures judged worse (a p50 1.2 → 2 ms), beside
// the run's case and the checks.
func TestJUnitBaselineCases(t *testing.T) {
	t.Parallel()
	base, err := artifacts.Load(writeRun(t, 1, artifactstest.T0, 5900, 1.2, 8))
	if err != nil {
		t.Fatal(err)
	}
	cur, err := artifacts.Load(writeRun(t, 2, artifactstest.T0.Add(time.Hour), 5900, 2, 8))
	if err != nil {
		t.Fatal(err)
	}
	cur.Steps[0].Checks = []artifacts.Check{{Name: "p99 <= 5ms", Value: 8, Unit: artifacts.UnitMS}, {Name: "error_rate <= 0", OK: true}}
	cmp := compare.Compare([]*artifacts.Artifact{base}, []*artifacts.Artifact{cur}, compare.CompareOptions{})
	var buf bytes.Buffer
	o := &junitOutput{w: &buf}
	o.group(groupResult{id: cur.Group.ID, artifact: cur})
	if err := o.end(&cmp, exitFail, false); err != nil {
		t.Fatal(err)
	}
	suites, err := junit.Ingest(buf.Bytes())
	if err != nil || len(suites) != 1 || len(suites[0].Tests) != 4 {
		t.Fatalf("junit: %v, want one suite of 4 cases:\n%s", err, buf.String())
	}
	want := []string{junitRunCase + " passed", "concurrency=50: p99 <= 5ms failed", "concurrency=50: error_rate <= 0 passed",
		"concurrency=50: " + junitBaselineCase + " failed"}
	for i, tc := range suites[0].Tests {
		if got := tc.Name + " " + string(tc.Status); got != want[i] {
			t.Errorf("case %d: %q, want %q", i, got, want[i])
		}
	}
	if msg := suites[0].Tests[3].Message; !strings.Contains(msg, "worse than the baseline: p50 ") {
		t.Errorf("baseline case message %q, want the p50 judged worse", msg)
	}
}

// TestJUnitLeakFailsTheRunCase: with --fail-on-leak, a target whose RSS
// is still rising fails the group's run case, saying so; without it, the
// run case passes (the run does not fail on it either).
func TestJUnitLeakFailsTheRunCase(t *testing.T) {
	t.Parallel()
	a, err := artifacts.Load(writeRun(t, 1, artifactstest.T0, 5900, 1.2, 8))
	if err != nil {
		t.Fatal(err)
	}
	a.Steps[0].Target.RSSRising = true
	for _, failOnLeak := range []bool{false, true} {
		var buf bytes.Buffer
		o := &junitOutput{w: &buf, failOnLeak: failOnLeak}
		o.group(groupResult{id: a.Group.ID, artifact: a})
		if err := o.end(nil, exitOK, false); err != nil {
			t.Fatal(err)
		}
		suites, err := junit.Ingest(buf.Bytes())
		if err != nil || len(suites) != 1 || len(suites[0].Tests) != 1 {
			t.Fatalf("junit: %v, want one suite of one case:\n%s", err, buf.String())
		}
		run := suites[0].Tests[0]
		if failed := run.Status == junit.StatusFailed; failed != failOnLeak || failed && !strings.Contains(run.Message, "RSS still rising") {
			t.Errorf("--fail-on-leak %v: run case %s %q", failOnLeak, run.Status, run.Message)
		}
	}
}
