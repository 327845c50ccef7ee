package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
	"github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// TestBenchstatReadsCompareFigures writes two sides of synthetic
// artifacts (two groups: blocks of 1 s with two steps and a named
// request, and 8 repetitions), turns each into the Go benchmark format
// with `report --format benchstat`, runs the real benchstat (built from
// the module cache) on the two files and checks that every row compare
// judges on samples has benchstat's figures: the same medians, p-value,
// sample counts and delta (or ~).
func TestBenchstatReadsCompareFigures(t *testing.T) {
	t.Parallel()
	baseDir, curDir := writeBenchstatSide(t, 1, 1.2, 5), writeBenchstatSide(t, 2, 1.35, 5.5)
	dir := t.TempDir()
	files := map[string]string{baseDir: filepath.Join(dir, "old.txt"), curDir: filepath.Join(dir, "new.txt")}
	for in, out := range files {
		if code, _, errOut := runCmd(t, cmdReport, in, "--format", "benchstat", "-o", out); code != exitOK {
			t.Fatalf("report --format benchstat %s: exit %d: %s", in, code, errOut)
		}
	}
	bin := testbin.Build(t, "golang.org/x/perf/cmd/benchstat")
	out, err := exec.Command(bin, "-format", "csv", files[baseDir], files[curDir]).Output()
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, out)
	}
	got := readBenchstatCSV(t, string(out))
	base, cur := artifactstest.LoadDir(t, baseDir), artifactstest.LoadDir(t, curDir)
	c := compare.Compare(mapValues(base), mapValues(cur), compare.CompareOptions{})
	checked, significant := 0, 0
	for _, r := range c.Rows {
		if r.Test != compare.TestMannWhitney {
			continue
		}
		unit, scale := compare.BenchfmtUnit(artifacts.BaseMetric(r.Metric))
		key := benchstatRowName(r) + " " + unit
		b, ok := got[key]
		if !ok {
			t.Errorf("benchstat has no row %q (compare row %s %s %s)", key, r.Group, r.Step, r.Metric)
			continue
		}
		checkBenchstatRow(t, key, b, r, scale)
		checked++
		if r.P <= compare.DefaultAlpha {
			significant++
		}
	}
	if checked < 30 || significant < 3 || checked != len(got) {
		t.Errorf("checked %d rows (%d significant), benchstat has %d: want every row, at least 30, 3 significant\n%s",
			checked, significant, len(got), out)
	}
	t.Logf("%d rows equal, %d significant", checked, significant)
}

// writeBenchstatSide writes one side's artifacts to a new folder: group
// G1 with steps rate=100 (a named request "login") and rate=200 in blocks
// of 1 s, group G2 in 8 runs; p50 and p99 are the latencies of G1's first
// step and G2.
func writeBenchstatSide(t *testing.T, seed uint64, p50, p99 float64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	started := artifactstest.T0.Add(time.Duration(seed) * time.Hour)
	s1 := artifactstest.Step(rng, artifactstest.Spec{Label: "rate=100", RPS: 100, P50: p50, P99: p99, CV: 0.05, Errors: 8})
	login := artifactstest.Step(rng, artifactstest.Spec{RPS: 30, P50: 2 * p50, P99: 3 * p99, CV: 0.05, Points: 35})
	s1.ByName = map[string]artifacts.NamedStep{"login": {Requests: login.Requests, LatencyMS: login.LatencyMS, Samples: login.Samples}}
	s2 := artifactstest.Step(rng, artifactstest.Spec{Label: "rate=200", RPS: 200, P50: 1.5, P99: 9, CV: 0.05, Points: 30})
	runs := artifactstest.Step(rng, artifactstest.Spec{Label: "c=4", RPS: 900, P50: p50, P99: p99, CV: 0.05, Runs: 8})
	dir := t.TempDir()
	for _, a := range []*artifacts.Artifact{artifactstest.Artifact("G1", started, s1, s2), artifactstest.Artifact("G2", started, runs)} {
		if _, err := artifacts.Write(dir, a); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func mapValues(m map[string]*artifacts.Artifact) []*artifacts.Artifact {
	var out []*artifacts.Artifact
	for _, a := range m {
		out = append(out, a)
	}
	return out
}

// benchstatRow is one row of benchstat's CSV: the two centers (in the
// benchmark format's units), the delta ("~" or "+5.39%") and the test
// ("p=0.000 n=40").
type benchstatRow struct {
	old, new    float64
	delta, test string
}

// readBenchstatCSV reads benchstat -format csv: a table per unit, each a
// line of files, a line of units and a row per benchmark (geomean rows
// left out), keyed "NAME UNIT".
func readBenchstatCSV(t *testing.T, out string) map[string]benchstatRow {
	t.Helper()
	rows := map[string]benchstatRow{}
	for _, table := range strings.Split(strings.TrimSpace(out), "\n\n") {
		r := csv.NewReader(strings.NewReader(table))
		r.FieldsPerRecord = -1
		recs, err := r.ReadAll()
		if err != nil || len(recs) < 3 || len(recs[1]) != 7 {
			t.Fatalf("benchstat table: %v\n%s", err, table)
		}
		unit := recs[1][1]
		for _, rec := range recs[2:] {
			if rec[0] == "geomean" {
				continue
			}
			o, err1 := strconv.ParseFloat(rec[1], 64)
			n, err2 := strconv.ParseFloat(rec[3], 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("benchstat row %q: centers not numbers", rec)
			}
			rows[rec[0]+" "+unit] = benchstatRow{old: o, new: n, delta: rec[5], test: rec[6]}
		}
	}
	return rows
}

// benchstatRowName is the benchmark name compare's row r has in the
// benchmark format: GROUP/STEP, /request=NAME for a named request's.
func benchstatRowName(r compare.Row) string {
	name := r.Group + "/" + r.Step
	if _, req, ok := strings.Cut(r.Metric, "["); ok {
		name += "/request=" + strings.TrimSuffix(req, "]")
	}
	return name
}

// checkBenchstatRow checks benchstat's row b against compare's row r,
// whose figures are scale times smaller or larger than b's units.
func checkBenchstatRow(t *testing.T, key string, b benchstatRow, r compare.Row, scale float64) {
	t.Helper()
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-12*math.Max(math.Abs(x), math.Abs(y)) }
	if !near(b.old, r.Base*scale) || !near(b.new, r.Current*scale) {
		t.Errorf("%s: benchstat centers %g → %g, compare %g → %g (×%g)", key, b.old, b.new, r.Base, r.Current, scale)
	}
	test := fmt.Sprintf("n=%d+%d", r.NBase, r.NCurrent)
	if r.NBase == r.NCurrent {
		test = fmt.Sprintf("n=%d", r.NBase)
	}
	if r.P != 0 {
		test = fmt.Sprintf("p=%.3f %s", r.P, test)
	}
	if b.test != test {
		t.Errorf("%s: benchstat %q, compare %q", key, b.test, test)
	}
	delta := "~"
	switch {
	case r.P <= compare.DefaultAlpha && r.Base == r.Current:
		delta = "0.00%"
	case r.P <= compare.DefaultAlpha:
		delta = fmt.Sprintf("%+.2f%%", r.DeltaPct)
	}
	if b.delta != delta {
		t.Errorf("%s: benchstat delta %q, compare %q (p=%g)", key, b.delta, delta, r.P)
	}
}

// TestReportBenchstatLines: each sample of a step is one line of the
// Go benchmark format with every sampled figure on it, named after the
// group and step.
func TestReportBenchstatLines(t *testing.T) {
	t.Parallel()
	dir := writeBenchstatSide(t, 3, 1, 4)
	code, out, errOut := runCmd(t, cmdReport, dir, "--format", "benchstat")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	counts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 2+2*8 || f[1] != "1" {
			t.Fatalf("line %q: want a name, 1 iteration and 8 figures with units", line)
		}
		counts[f[0]]++
	}
	want := map[string]int{"BenchmarkG1/rate=100": 40, "BenchmarkG1/rate=100/request=login": 35,
		"BenchmarkG1/rate=200": 30, "BenchmarkG2/c=4": 8}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Errorf("lines per benchmark %v, want %v", counts, want)
	}
}

// TestReportBenchstatWithoutSamples: artifacts written before samples
// give benchstat nothing: a usage error, not an empty file.
func TestReportBenchstatWithoutSamples(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	a := artifactstest.Artifact("G1", artifactstest.T0, artifactstest.Step(rng, artifactstest.Spec{RPS: 100, P50: 1, P99: 4, NoSamples: true}))
	dir := t.TempDir()
	if _, err := artifacts.Write(dir, a); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, cmdReport, dir, "--format", "benchstat")
	if code != exitUsage || out != "" || !strings.Contains(errOut, "predate samples") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 saying the artifacts predate samples", code, out, errOut)
	}
}
