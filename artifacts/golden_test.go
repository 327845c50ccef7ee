package artifacts_test

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
	"github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/artifacts/report"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden with the current output")

// golden compares got with testdata/name.golden. With -update it rewrites
// the file; on a mismatch it writes testdata/name.got beside it to diff.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gotPath := filepath.Join("testdata", name+".got")
		_ = os.WriteFile(gotPath, got, 0o644)
		t.Errorf("%s differs from %s; see %s (go test -update accepts it)", name, path, gotPath)
	}
}

// fixtureRuns returns a base and a current run of three groups: a sweep G1
// of 6 repetitions whose 16-worker step got slower, a two-minute soak G5
// (blocks of 1 s) whose RSS climbs faster and that now has errors, and G7,
// only in the base.
func fixtureRuns() (base, current []*artifacts.Artifact) {
	rng := rand.New(rand.NewPCG(1, 42))
	sweep := func(p99At16 float64) []artifacts.Step {
		var steps []artifacts.Step
		for _, n := range []float64{1, 4, 16} {
			p99 := 2 + n/2
			if n == 16 {
				p99 = p99At16
			}
			steps = append(steps, artifactstest.Step(rng, artifactstest.Spec{
				Label: "concurrency=" + itoa(n), Params: map[string]float64{"concurrency": n},
				RPS: 500 * n / (1 + n/8), P50: 1 + n/4, P99: p99, CV: 0.03, Runs: 6}))
		}
		return steps
	}
	soak := func(slope, se float64, errs int64) artifacts.Step {
		return artifactstest.Step(rng, artifactstest.Spec{Label: "concurrency=50",
			Params: map[string]float64{"concurrency": 50}, RPS: 5900, P50: 1.2, P99: 8.1,
			CV: 0.05, Errors: errs, Target: true, RSSSlope: slope, RSSSlopeSE: se, SpanS: 120})
	}
	t1 := artifactstest.T0.Add(24 * time.Hour)
	base = []*artifacts.Artifact{
		artifactstest.Artifact("G1", artifactstest.T0, sweep(10)...),
		artifactstest.Artifact("G5", artifactstest.T0, soak(0.6, 0.1, 0)),
		artifactstest.Artifact("G7", artifactstest.T0, artifactstest.Step(rng, artifactstest.Spec{RPS: 80, P50: 5, P99: 9, CV: 0.05})),
	}
	current = []*artifacts.Artifact{
		artifactstest.Artifact("G1", t1, sweep(20)...),
		artifactstest.Artifact("G5", t1, soak(6.5, 0.2, 40)),
	}
	current[1].Run.ToolVersion = "v0.2.0"
	return base, current
}

func itoa(f float64) string { return artifacts.FormatNumber(f) }

// verdictFixtures add to fixtureRuns the cases that must not give a
// verdict: G3, a 10 s run whose RSS slope went from 0.03 to 3.46 MB/min
// (not enough data for a trend), and G8, artifacts written before samples
// whose latency doubled.
func verdictFixtures() (base, current []*artifacts.Artifact) {
	rng := rand.New(rand.NewPCG(43, 43))
	short := func(slope float64) artifacts.Step {
		return artifactstest.Step(rng, artifactstest.Spec{RPS: 900, P50: 0.4, P99: 1.5, CV: 0.05,
			Points: 10, Target: true, RSSSlope: slope, RSSSlopeSE: 1.5})
	}
	old := func(p99 float64) artifacts.Step {
		return artifactstest.Step(rng, artifactstest.Spec{RPS: 300, P50: 3, P99: p99, CV: 0.04, NoSamples: true})
	}
	t1 := artifactstest.T0.Add(24 * time.Hour)
	base = []*artifacts.Artifact{artifactstest.Artifact("G3", artifactstest.T0, short(0.03)),
		artifactstest.Artifact("G8", artifactstest.T0, old(9))}
	current = []*artifacts.Artifact{artifactstest.Artifact("G3", t1, short(3.46)),
		artifactstest.Artifact("G8", t1, old(18))}
	return base, current
}

func TestCompareGolden(t *testing.T) {
	base, cur := fixtureRuns()
	b2, c2 := verdictFixtures()
	base, cur = append(base, b2...), append(cur, c2...)
	c := compare.Compare(base, cur, compare.CompareOptions{})
	for _, format := range []string{report.FormatText, report.FormatMarkdown, report.FormatJSON} {
		var buf bytes.Buffer
		if err := report.Render(&buf, c, format); err != nil {
			t.Fatal(err)
		}
		golden(t, "compare."+format, buf.Bytes())
	}
}
