package report_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
	"github.com/benchtui/benchtui/artifacts/report"
)

// reportFixture is every run of artifactstest.FixtureRuns, with checks, events and notes
// on the current soak.
func reportFixture() []*artifacts.Artifact {
	base, cur := artifactstest.FixtureRuns()
	soak := &cur[1].Steps[0]
	soak.Checks = []artifacts.Check{{Name: "p99 <= 50ms", OK: true, Value: 8.13},
		{Name: "error_rate <= 0", OK: false, Value: 0.000169}}
	soak.Events = []artifacts.Event{{T: 30, Kind: artifacts.EventExtended, Note: "+30s RSS rising 6.5 MB/min > 1 MB/min"},
		{T: 35, Kind: artifacts.EventNote, Note: "rebuilt with the pool fix"}}
	cur[1].Notes = []string{"JSC heap expansion ramp, not a leak"}
	cur[0].Steps[2].Checks = []artifacts.Check{{Name: "p99 <= 15ms", OK: false, Value: 19.9}}
	return append(base, cur...)
}

func TestReportMarkdownGolden(t *testing.T) {
	golden(t, "report.md", []byte(report.Report(reportFixture())))
}

func TestReportHTMLGolden(t *testing.T) {
	got := report.ReportHTML(reportFixture())
	for _, banned := range []string{"http://", "https://", "<script", "<link"} {
		if strings.Contains(strings.ReplaceAll(got, `xmlns="http://www.w3.org/2000/svg"`, ""), banned) {
			t.Errorf("HTML report contains %q: it must be self-contained", banned)
		}
	}
	// Latency and throughput for each group, RSS for the soak G5, latency
	// against concurrency for the sweep G1.
	if n := strings.Count(got, "<svg"); n != 8 {
		t.Errorf("%d charts, want 8", n)
	}
	golden(t, "report.html", []byte(got))
}

func TestReportOpenLoopSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	var steps []artifacts.Step
	for _, rate := range []float64{10, 20, 40} {
		s := artifactstest.Step(rng, artifactstest.Spec{Label: "rate=" + itoa(rate),
			Params: map[string]float64{"rate": rate}, RPS: rate * 0.96, P50: 500, P99: 700, CV: 0.02})
		s.Series[3].InFlight = int(6 * rate)
		steps = append(steps, s)
	}
	steps[2].Dropped = 3
	got := report.Report([]*artifacts.Artifact{artifactstest.Artifact("G15", artifactstest.T0, steps...)})
	for _, want := range []string{"| rate | p50 (ms) | p99 (ms) | ops/s | errors | dropped | max in-flight |",
		"| 40 |", "| 240 |"} {
		if !strings.Contains(strings.Join(strings.Fields(got), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
}

// TestReportByRequest: a step with named figures and status counts gets
// a "By request" table (a row per name) and a "Status codes" table.
func TestReportByRequest(t *testing.T) {
	st := artifactstest.Step(rand.New(rand.NewPCG(5, 5)), artifactstest.Spec{RPS: 1000, P50: 2, P99: 10, CV: 0.03})
	st.ByName = map[string]artifacts.NamedStep{
		"ping":  {Requests: 1500, LatencyMS: artifacts.Percentiles{P50: 0.4, P99: 1.2, Max: 3}},
		"mixed": {Requests: 4500, Errors: 31, LatencyMS: artifacts.Percentiles{P50: 5.1, P99: 9.8, Max: 22}},
	}
	st.Status = map[string]int64{"200": 5969, "429": 31}
	got := report.Report([]*artifacts.Artifact{artifactstest.Artifact("G5", artifactstest.T0, st)})
	for _, want := range []string{"By request", "| mixed   |    4,500 |     31 |", "| ping    |    1,500 |      0 |",
		"Status codes", "| 429 |", "| 5,969 |  31 |"} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
}

func TestPercentilesGolden(t *testing.T) {
	a, err := artifacts.Load("../testdata/artifact.json")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := report.WritePercentiles(&buf, []*artifacts.Artifact{a}); err != nil {
		t.Fatal(err)
	}
	golden(t, "percentiles", buf.Bytes())
}

// TestSweepChartDrawsTheBaseline: the sweep G1 has two runs, so its
// chart of latency against concurrency draws the oldest's p50 and p99
// dashed behind the newest's, as the charts over time do.
func TestSweepChartDrawsTheBaseline(t *testing.T) {
	html := report.ReportHTML(reportFixture())
	start := strings.Index(html, `aria-label="Latency against concurrency"`)
	if start < 0 {
		t.Fatal("no sweep chart")
	}
	chart := html[start : start+strings.Index(html[start:], "</svg>")]
	for _, want := range []string{"p50 base", "p99 base", `stroke-dasharray="5 3"`} {
		if !strings.Contains(chart, want) {
			t.Errorf("the sweep chart has no %q:\n%s", want, chart)
		}
	}
}
