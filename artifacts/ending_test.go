package artifacts_test

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
)

// soakConfig is a G5-like group config as the engine writes it: the plan
// as written, durations as strings.
func soakConfig() map[string]any {
	return map[string]any{"duration": "300s", "soak": map[string]any{"extend_while_rss_rising": map[string]any{
		"slope_mb_per_min": 1.5, "window": "60s", "step": "60s", "max": "540s"}}}
}

// endingArtifact is a one-step run with the given checks, events and RSS
// tail slope.
func endingArtifact(checks []artifacts.Check, events []artifacts.Event, tail float64) *artifacts.Artifact {
	rng := rand.New(rand.NewPCG(3, 3))
	st := artifactstest.Step(rng, artifactstest.Spec{Label: "concurrency=50", RPS: 100, P50: 1, P99: 3, CV: 0.05, Target: true})
	st.Target.RSSTailSlopeMBMin = tail
	st.Checks, st.Events = checks, events
	a := artifactstest.Artifact("G5", artifactstest.T0, st)
	a.Group.Config = soakConfig()
	return a
}

func auto(t float64, d string) artifacts.Event {
	return artifacts.Event{T: t, Kind: artifacts.EventExtended, Note: "+" + d + " RSS rising 2.31 MB/min > 1.5 MB/min"}
}

func TestOutcome(t *testing.T) {
	ok := artifacts.Check{Name: "p99 <= 50ms", OK: true, Value: 8.1}
	badP99 := artifacts.Check{Name: "p99 <= 50ms", Value: 71.25}
	badErr := artifacts.Check{Name: "error_rate <= 0", Value: 0.0125}
	stop := artifacts.Event{T: 12, Kind: artifacts.EventStopped, Note: "by the operator"}
	operator := artifacts.Event{T: 10, Kind: artifacts.EventExtended, Note: "+30s by the operator"}
	cases := []struct {
		name    string
		checks  []artifacts.Check
		events  []artifacts.Event
		tail    float64
		partial bool
		tags    []string
		words   string
	}{
		{"pass", []artifacts.Check{ok}, nil, 0.2, false, []string{"✓ pass"}, "✓ pass"},
		{"no checks is a pass", nil, nil, 0, false, []string{"✓ pass"}, "✓ pass"},
		{"two failed", []artifacts.Check{badP99, ok, badErr}, nil, 0, false, []string{"✗ 2"}, "✗ 2 checks failed"},
		{"capped soak still rising", []artifacts.Check{ok}, []artifacts.Event{auto(300, "1m0s"), auto(360, "1m0s"), auto(420, "1m0s"), auto(480, "1m0s")},
			26.4, false, []string{"⚠ leak"}, "⚠ leak suspected"},
		{"soak that settled", []artifacts.Check{ok}, []artifacts.Event{auto(300, "1m0s")}, 0.4, false, []string{"✓ pass"}, "✓ pass"},
		{"slope at the threshold is not above it", nil, []artifacts.Event{auto(300, "1m0s")}, 1.5, false, []string{"✓ pass"}, "✓ pass"},
		// Without an auto-extension the tail slope of a step is not judged:
		// a 10 s ping run's tail slope is noise.
		{"rising but never extended", nil, nil, 9, false, []string{"✓ pass"}, "✓ pass"},
		{"operator extension is not the policy", nil, []artifacts.Event{operator}, 9, false, []string{"✓ pass"}, "✓ pass"},
		{"partial and failed", []artifacts.Check{badP99}, nil, 0, true, []string{"✗ 1", "partial"}, "✗ 1 check failed, partial"},
		{"stopped implies partial", nil, []artifacts.Event{stop}, 0, true, []string{"stopped"}, "stopped (by the operator)"},
		{"all at once", []artifacts.Check{badErr}, []artifacts.Event{auto(300, "1m0s"), stop}, 3, true,
			[]string{"✗ 1", "⚠ leak", "stopped"}, "✗ 1 check failed, ⚠ leak suspected, stopped (by the operator)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := endingArtifact(c.checks, c.events, c.tail)
			a.Run.Partial = c.partial
			e := artifacts.Outcome(a)
			if got := e.Tags(); !reflect.DeepEqual(got, c.tags) {
				t.Errorf("tags %q, want %q", got, c.tags)
			}
			if got := e.String(); got != c.words {
				t.Errorf("String %q, want %q", got, c.words)
			}
			if e.Pass() != (c.tags[0] == "✓ pass") {
				t.Errorf("Pass %v with tags %q", e.Pass(), c.tags)
			}
		})
	}
}

func TestOutcomeDetails(t *testing.T) {
	a := endingArtifact([]artifacts.Check{{Name: "p99 <= 50ms", Value: 71.25}, {Name: "rps >= 5000", Value: 4321},
		{Name: "error_rate <= 0", Value: 0.0004},
		{Name: "finish", Note: "verify: connection refused"}},
		[]artifacts.Event{auto(300, "1m0s"), {T: 320, Kind: artifacts.EventExtended, Note: "+30s by the operator"}, auto(390, "1m0s")}, 26.04)
	want := []string{
		"✗ p99 <= 50ms: was 71.25 ms",
		"✗ rps >= 5000: was 4321",
		"✗ error_rate <= 0: was 0.0004",
		"✗ finish: verify: connection refused",
		"⚠ auto-extended 2/3 (+2m0s), RSS tail slope (last 40 s) +26.0 MB/min: leak suspected",
	}
	e := artifacts.Outcome(a)
	if got := e.Details(false); !reflect.DeepEqual(got, want) {
		t.Errorf("details\n%q\nwant\n%q", got, want)
	}
	if got := e.Details(true)[0]; got != "concurrency=50: ✗ p99 <= 50ms: was 71.25 ms" {
		t.Errorf("multi-step detail %q", got)
	}
	v := e.Soaks[0]
	// The operator's +30s counts toward the policy's max, as the console's
	// soak line counts it live: of the 4 minutes the policy had, 2 went to
	// its extensions and 30 s to the operator's, so 1 more could follow.
	if v.Extensions != 2 || v.Possible != 3 || v.Added != 2*time.Minute || v.ThresholdMBPerMin != 1.5 {
		t.Errorf("soak verdict %+v: want 2 of 3 extensions, +2m, threshold 1.5 from the config", v)
	}
}

// TestOutcomeSurvivesTheFile judges an artifact read back from disk, where
// the config's numbers are JSON floats, as one straight from the engine.
func TestOutcomeSurvivesTheFile(t *testing.T) {
	a := endingArtifact(nil, []artifacts.Event{auto(300, "1m0s")}, 1.6)
	a.Group.Config["soak"].(map[string]any)["extend_while_rss_rising"].(map[string]any)["slope_mb_per_min"] = 2 // an int, as YAML decodes it
	before := artifacts.Outcome(a)
	path, err := artifacts.Write(t.TempDir(), a)
	if err != nil {
		t.Fatal(err)
	}
	b, err := artifacts.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	after := artifacts.Outcome(b)
	if before.Leak() || after.Leak() || after.Soaks[0].ThresholdMBPerMin != 2 {
		j, _ := json.Marshal(after)
		t.Errorf("1.6 MB/min against a threshold of 2 is no leak, before or after the file: %s", j)
	}
}

func TestSoakVerdictWithoutPolicyInConfig(t *testing.T) {
	a := endingArtifact(nil, []artifacts.Event{auto(10, "5s")}, 1.2)
	a.Group.Config = nil
	v := artifacts.Outcome(a).Soaks[0]
	if !v.Leak || v.Possible != 0 || v.ThresholdMBPerMin != artifacts.DefaultLeakSlope {
		t.Errorf("%+v: want the default threshold and no known cap", v)
	}
	if got := v.String(); got != "auto-extended 1 (+5s), RSS tail slope (last 40 s) +1.2 MB/min: leak suspected" {
		t.Errorf("String %q", got)
	}
}

func TestNewestCompleteSkipsPartial(t *testing.T) {
	dir := t.TempDir()
	writeRuns(t, dir, map[string][]int{"G1": {1, 2}, "G2": {5}})
	rng := rand.New(rand.NewPCG(9, 9))
	cut := artifactstest.Artifact("G1", artifactstest.T0.Add(3*time.Hour),
		artifactstest.Step(rng, artifactstest.Spec{RPS: 50, P50: 1, P99: 2, CV: 0.05, Points: 3}))
	cut.Run.Partial = true
	cutPath, err := artifacts.Write(dir, cut)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := artifacts.Newest(dir, "G1", time.Time{}); p != cutPath {
		t.Fatalf("Newest = %s, want the partial %s (the fixture is wrong)", p, cutPath)
	}
	path, a, skipped, err := artifacts.NewestComplete(dir, "G1", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, artifacts.FileName("G1", artifactstest.T0.Add(2*time.Hour)))
	if path != want || a == nil || a.Run.Partial || !a.Run.Started.Equal(artifactstest.T0.Add(2*time.Hour)) {
		t.Errorf("baseline %s, want %s, the newest whole run", path, want)
	}
	if len(skipped) != 1 || !skipped[0].Run.Partial {
		t.Errorf("skipped %d artifacts, want the one partial run", len(skipped))
	}
	// Before the partial run's own start it is not considered at all.
	if _, _, skipped, _ := artifacts.NewestComplete(dir, "G1", artifactstest.T0.Add(3*time.Hour)); len(skipped) != 0 {
		t.Errorf("skipped %d before the partial run started", len(skipped))
	}
	// Only partial runs: no baseline, and no error.
	only := t.TempDir()
	if _, err := artifacts.Write(only, cut); err != nil {
		t.Fatal(err)
	}
	if path, a, skipped, err := artifacts.NewestComplete(only, "G1", time.Time{}); path != "" || a != nil || len(skipped) != 1 || err != nil {
		t.Errorf("only a partial run: %q %v %d %v, want no baseline", path, a != nil, len(skipped), err)
	}
}

func TestNewestCompleteNamesDamagedFile(t *testing.T) {
	dir := t.TempDir()
	writeRuns(t, dir, map[string][]int{"G1": {1}})
	bad := filepath.Join(dir, artifacts.FileName("G1", artifactstest.T0.Add(2*time.Hour)))
	if err := os.WriteFile(bad, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := artifacts.NewestComplete(dir, "G1", time.Time{}); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("err %v, want one naming %s", err, bad)
	}
}
