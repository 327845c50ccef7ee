package report_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
	"github.com/benchtui/benchtui/artifacts/report"
)

// A step with windows gets a "Windows" table in the report, a row each.
func TestReportWindows(t *testing.T) {
	st := artifactstest.Step(rand.New(rand.NewPCG(5, 5)), artifactstest.Spec{RPS: 1000, P50: 2, P99: 10, CV: 0.03})
	st.Windows = map[string]artifacts.WindowStep{
		"rotation":   {During: "rotate", FromS: 2.004, ToS: 2.117, Runs: 1, Requests: 480, LatencyMS: artifacts.Percentiles{P50: 1.2, P99: 4.9, Max: 6}},
		"after_kill": {After: "kill", FromS: 5, ToS: 10, Runs: 1, Requests: 21000, Errors: 310, LatencyMS: artifacts.Percentiles{P50: 0.8, P99: 30, Max: 90}},
	}
	got := report.Report([]*artifacts.Artifact{artifactstest.Artifact("G7b", artifactstest.T0, st)})
	for _, want := range []string{"Windows", "| after_kill |        5 |     10 |    1 |   21,000 |    310 |",
		"| rotation   |    2.004 |  2.117 |    1 |      480 |      0 |"} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
}
