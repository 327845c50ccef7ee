package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestRunWritesIntervalLogs runs a step twice (--count 2) for 0.6 s in
// blocks of 0.25 s (full blocks, a part block and the drain in each run)
// and reads the step's .hlog back with hdrhistogram-go's log reader: the
// intervals' counts add up to the step's requests exactly and their merge
// is the step's histogram.
func TestRunWritesIntervalLogs(t *testing.T) {
	t.Parallel()
	srv, _ := runnertest.CountingServer(t, time.Millisecond)
	dir := t.TempDir()
	code, _, stderr := runCmd(t, cmdRun, writePlan(t, srv.URL, "    block: 250ms"), "-g", "closed", "--duration", "600ms", "--count", "2", "-o", dir)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	a := loadArtifacts(t, dir)["closed"]
	s := a.Steps[0]
	if want := artifacts.HLogName(artifacts.FileName("closed", a.Run.Started), 0); s.HLog != want {
		t.Fatalf("steps[0].hlog = %q, want %q", s.HLog, want)
	}
	ivs, err := artifacts.ReadIntervalLog(filepath.Join(dir, s.HLog))
	if err != nil {
		t.Fatal(err)
	}
	if len(ivs) < 6 {
		t.Errorf("%d intervals in two runs of 0.6 s in 0.25 s blocks, want at least 6", len(ivs))
	}
	merged := artifacts.NewHistogram()
	var sum int64
	for _, h := range ivs {
		sum += h.TotalCount()
		merged.Merge(h)
	}
	step, err := artifacts.DecodeHistogram(s.Histogram)
	if err != nil {
		t.Fatal(err)
	}
	if sum != s.Requests || !merged.Equals(step) {
		t.Errorf("intervals add up to %d operations (equal histograms: %v); the step has %d", sum, merged.Equals(step), s.Requests)
	}
}
