package artifacts

import (
	"math"
	"strings"
	"testing"
)

// TestNonFiniteFiguresDoNotLoseTheArtifact: NaN and Inf anywhere in an
// artifact (a step's field, a map's value, behind a pointer, deep in
// extra) are written as 0 with a note naming them, and the file loads.
func TestNonFiniteFiguresDoNotLoseTheArtifact(t *testing.T) {
	a := fixture(t)
	s := &a.Steps[0]
	s.OfferedRPS = math.Inf(1)
	s.Params["concurrency"] = math.NaN()
	s.Target.RSSSlopeMBPerMin = math.Inf(-1)
	s.Extra = map[string]any{"deep": map[string]any{"list": []any{1.5, math.NaN()}}, "flat": math.Inf(1)}
	s.Probes = map[string]ProbeStats{"q": {Max: math.NaN(), Samples: 1}}
	note := SanitizeFloats(a)
	for _, want := range []string{"6 non-finite figures", "steps[0].offered_rps", "steps[0].params.concurrency", "extra.deep.list[1]", "and 1 more"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	path, err := Write(t.TempDir(), a)
	if err != nil {
		t.Fatalf("write: %v", err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	g := got.Steps[0]
	deep := g.Extra["deep"].(map[string]any)["list"].([]any)
	if g.OfferedRPS != 0 || g.Params["concurrency"] != 0 || g.Target.RSSSlopeMBPerMin != 0 ||
		g.Extra["flat"] != 0.0 || deep[0] != 1.5 || deep[1] != 0.0 || g.Probes["q"].Max != 0 {
		t.Errorf("not zeroed: %+v", g)
	}
	if n := len(got.Notes); n == 0 || got.Notes[n-1] != note {
		t.Errorf("notes %q lack %q", got.Notes, note)
	}
	if again := SanitizeFloats(got); again != "" {
		t.Errorf("a second pass found %q", again)
	}
}

// TestFramedArtifactWithNaNIsWritten: a shard's frame is sanitized too.
func TestFramedArtifactWithNaNIsWritten(t *testing.T) {
	a := fixture(t)
	a.Steps[0].ThroughputRPS = math.NaN()
	var b strings.Builder
	if err := WriteFramed(&b, a); err != nil {
		t.Fatalf("framed: %v", err)
	}
	if a.Steps[0].ThroughputRPS != 0 || !strings.Contains(strings.Join(a.Notes, "\n"), "throughput_rps") {
		t.Errorf("throughput %v, notes %q", a.Steps[0].ThroughputRPS, a.Notes)
	}
}
