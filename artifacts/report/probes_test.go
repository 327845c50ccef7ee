package report_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/report"
)

// TestProbesRoundTripAndReport: a step's probes survive a write and a
// load, gaps included, and the report lists them; an artifact without
// probes (the artifacts package's testdata, written before them) loads as it did.
func TestProbesRoundTripAndReport(t *testing.T) {
	old, err := os.ReadFile("../testdata/artifact.json")
	if err != nil {
		t.Fatal(err)
	}
	a, err := artifacts.Decode(old)
	if err != nil {
		t.Fatalf("an artifact without probes: %v", err)
	}
	if a.Steps[0].Probes != nil || strings.Contains(report.Report([]*artifacts.Artifact{a}), "### Probes") {
		t.Fatalf("probes out of nowhere: %+v", a.Steps[0].Probes)
	}
	a.Steps[0].Probes = map[string]artifacts.ProbeStats{
		"backlog": {Min: 1, Max: 250, Last: 250, SlopePerMin: 120.5, Samples: 3, Errors: 1,
			Series: []artifacts.ProbePoint{{T: 0, Value: 1}, {T: 1, Gap: true}, {T: 2, Value: 125}, {T: 3, Value: 250}}},
		"idle": {Errors: 2, Series: []artifacts.ProbePoint{{T: 0, Gap: true}, {T: 1, Gap: true}}},
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	back, err := artifacts.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	p := back.Steps[0].Probes["backlog"]
	if p.Max != 250 || p.SlopePerMin != 120.5 || len(p.Series) != 4 || !p.Series[1].Gap || p.Series[3].Value != 250 {
		t.Errorf("backlog after a round trip: %+v", p)
	}
	rep := report.Report([]*artifacts.Artifact{back})
	for _, want := range []string{"### Probes", "| backlog |", "| 250 |", "+121", "| idle    |"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report has no %q:\n%s", want, rep)
		}
	}
}
