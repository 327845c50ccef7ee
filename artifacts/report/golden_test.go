package report_test

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

func itoa(f float64) string { return artifacts.FormatNumber(f) }

// verdictFixtures add to artifactstest.FixtureRuns the cases that must
// not give a verdict: G3, a 10 s run whose RSS slope went from 0.03 to
// 3.46 MB/min (not enough data for a trend), and G8, artifacts written
// before samples whose latency doubled.
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
	base, cur := artifactstest.FixtureRuns()
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
