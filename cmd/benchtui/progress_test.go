package main

import (
	"bytes"
	"html"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
	artreport "github.com/benchtui/benchtui/artifacts/report"
)

// endedRun is a G5 soak that failed a threshold and that its soak policy
// extended to its cap (two steps on 60 s) with RSS still rising, then was
// stopped: every part of an ending at once.
func endedRun() *artifacts.Artifact {
	rng := rand.New(rand.NewPCG(20, 6))
	st := artifactstest.Step(rng, artifactstest.Spec{Label: "concurrency=50", RPS: 3100, P50: 2.4, P99: 14, CV: 0.05,
		Points: 80, Target: true, RSSSlope: 26})
	st.Target.RSSTailSlopeMBMin = 26.04
	st.Checks = []artifacts.Check{{Name: "p99 <= 10ms", Value: 14.2}, {Name: "error_rate <= 0", OK: true}}
	st.Events = []artifacts.Event{
		{T: 60, Kind: artifacts.EventExtended, Note: "+10s RSS rising 24.80 MB/min > 1 MB/min"},
		{T: 70, Kind: artifacts.EventExtended, Note: "+10s RSS rising 25.10 MB/min > 1 MB/min"},
		{T: 80, Kind: artifacts.EventStopped, Note: "by the operator"},
	}
	a := artifactstest.Artifact("G5", artifactstest.T0, st)
	a.Run.Partial = true
	a.Group.Config = map[string]any{"duration": "60s", "soak": map[string]any{"extend_while_rss_rising": map[string]any{
		"slope_mb_per_min": 1.0, "step": "10s", "max": "90s"}}}
	return a
}

// TestSummarySaysTheEnding: the headless summary, the markdown and the HTML
// report say how the run ended in the same words, failed check with its
// value and limit, soak verdict included.
func TestSummarySaysTheEnding(t *testing.T) {
	t.Parallel()
	a := endedRun()
	var buf bytes.Buffer
	printSummary(&buf, a, "")
	sum := buf.String()
	ending := "✗ 1 check failed, ⚠ leak suspected, stopped (by the operator)"
	soak := "⚠ auto-extended 2/3 (+20s), RSS tail slope (last 60 s) +26.0 MB/min: leak suspected"
	for _, want := range []string{"G5 ended: " + ending, "concurrency=50 soak " + soak,
		"concurrency=50 check FAIL p99 <= 10ms: was 14.2 ms", "concurrency=50 check ok   error_rate <= 0: 0"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
	md := artreport.Report([]*artifacts.Artifact{a})
	for _, want := range []string{"**Ended:** " + ending, "- " + soak, "✗ p99 <= 10ms: was 14.2 ms"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown report lacks %q:\n%s", want, md)
		}
	}
	page := artreport.ReportHTML([]*artifacts.Artifact{a})
	for _, want := range []string{`<p class="bad"><b>Ended:</b> ` + html.EscapeString(ending), `<li class="warn">` + soak} {
		if !strings.Contains(page, want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
}

func TestSummaryOfAPass(t *testing.T) {
	t.Parallel()
	a := endedRun()
	a.Run.Partial = false
	s := &a.Steps[0]
	s.Checks[0] = artifacts.Check{Name: "p99 <= 10ms", OK: true, Value: 8.1}
	s.Events, s.Target.RSSTailSlopeMBMin = s.Events[:1], 0.3
	s.Target.RSSSlopeMBPerMin, s.Target.RSSRising = 0.3, false // a pass: RSS not rising
	var buf bytes.Buffer
	printSummary(&buf, a, "")
	for _, want := range []string{"G5 ended: ✓ pass\n", "concurrency=50 soak ✓ auto-extended 1/3 (+10s), RSS tail slope (last 60 s) +0.3 MB/min: settled (≤ 1 MB/min)"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, buf.String())
		}
	}
	if strings.Contains(buf.String(), "FAIL") {
		t.Errorf("a pass shows a failure:\n%s", buf.String())
	}
}
