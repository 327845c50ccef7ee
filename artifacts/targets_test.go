package artifacts_test

import (
	"strings"
	"testing"

	. "github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
)

func TestTargetsFigures(t *testing.T) {
	s := artifactstest.TargetsStep(3)
	for path, want := range map[string]float64{
		"targets.api.rss_mb.peak": 40, "targets.db.fds.end": 30, "targets.db.cpu_cores_peak": 0.3,
		"targets_sum.rss_mb.end": 138, "targets_sum.cpu_cores": 0.7, "target.cpu_cores_peak": 0.9,
	} {
		if got, err := figureOf(t, &s, path); err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", path, got, err, want)
		}
	}
	if _, err := figureOf(t, &s, "targets.web.rss_mb.peak"); err == nil || !strings.Contains(err.Error(), "has: api, db") {
		t.Errorf("absent target: %v", err)
	}
	one := Step{Target: s.Target}
	if _, err := figureOf(t, &one, "targets_sum.rss_mb.peak"); err == nil {
		t.Error("targets_sum of a step of one target: no error")
	}
	for _, bad := range []string{"targets.api.rss", "targets.rss_mb.peak", "targets_sum.colour"} {
		if _, err := ParseFigure(bad); err == nil {
			t.Errorf("ParseFigure(%q): no error", bad)
		}
	}
}

// A soak that watched the second target judges the leak on its slope.
func TestSoakVerdictOnItsTarget(t *testing.T) {
	st := artifactstest.TargetsStep(0) // api flat
	db := *st.Targets["db"]
	db.RSSTailSlopeMBMin = 9
	st.Targets["db"] = &db
	st.Events = []Event{{T: 60, Kind: EventExtended, Note: "+1m0s db RSS rising 9.00 MB/min > 1 MB/min"}}
	a := artifactstest.Artifact("G1", artifactstest.T0, st)
	a.Group.Config = map[string]any{"soak": map[string]any{"extend_while_rss_rising": map[string]any{
		"slope_mb_per_min": 1.0, "target": "db"}}}
	if e := Outcome(a); !e.Leak() || e.Soaks[0].SlopeMBPerMin != 9 {
		t.Errorf("soak on db: %+v", e.Soaks)
	}
	a.Group.Config = map[string]any{"soak": map[string]any{"extend_while_rss_rising": map[string]any{"slope_mb_per_min": 1.0}}}
	if e := Outcome(a); e.Leak() {
		t.Errorf("soak on the first (flat) target: %+v", e.Soaks)
	}
}
