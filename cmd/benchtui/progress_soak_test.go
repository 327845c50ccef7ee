package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
)

// TestProgressTellsEachAutoExtension: the headless progress prints a line
// as soon as the soak policy extends a step, once per extension (the
// operator's extensions are not the policy's), counting afresh each step.
func TestProgressTellsEachAutoExtension(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := newProgress(&buf, "leak-soak")
	auto := func(note string) artifacts.Event {
		return artifacts.Event{Kind: artifacts.EventExtended, Note: note}
	}
	snap := engine.Snapshot{Step: 1, Steps: 2, StepLabel: "rate=100", Phase: engine.PhaseMeasure}
	for _, evs := range [][]artifacts.Event{
		nil,
		{auto("+10s RSS rising 24.80 MB/min > 1 MB/min")},
		{auto("+10s RSS rising 24.80 MB/min > 1 MB/min")}, // the same extension seen again
		{auto("+10s RSS rising 24.80 MB/min > 1 MB/min"), auto("+5s by the operator")},
		{auto("+10s RSS rising 24.80 MB/min > 1 MB/min"), auto("+5s by the operator"), auto("+10s RSS rising 30.10 MB/min > 1 MB/min")},
	} {
		snap.Events = evs
		p.show(snap)
	}
	snap.Step, snap.StepLabel, snap.Events = 2, "rate=200", []artifacts.Event{auto("+10s RSS rising 5.00 MB/min > 1 MB/min")}
	p.show(snap)
	var told []string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.Contains(l, "soak auto-extended") {
			told = append(told, l)
		}
	}
	want := []string{
		"leak-soak step 1/2 rate=100: soak auto-extended the step (1 so far, +10s in all): +10s RSS rising 24.80 MB/min > 1 MB/min",
		"leak-soak step 1/2 rate=100: soak auto-extended the step (2 so far, +20s in all): +10s RSS rising 30.10 MB/min > 1 MB/min",
		"leak-soak step 2/2 rate=200: soak auto-extended the step (1 so far, +10s in all): +10s RSS rising 5.00 MB/min > 1 MB/min",
	}
	if strings.Join(told, "\n") != strings.Join(want, "\n") {
		t.Errorf("soak lines\n%s\nwant\n%s", strings.Join(told, "\n"), strings.Join(want, "\n"))
	}
}
