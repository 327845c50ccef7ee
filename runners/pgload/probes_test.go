//go:build linux

package pgload_test

import (
	"context"
	"testing"

	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestSQLProbeOfAGrowingTable: a SQL probe with `dsn: embedded` reads the
// group's own cluster while the group's load inserts rows: its series
// rises, its slope is positive, and its last read is the final count
// within one interval's growth (and what the drain added). Its reads
// have 2 s, not the interval: a whole suite once took more than 200 ms to
// connect.
func TestSQLProbeOfAGrowingTable(t *testing.T) {
	t.Parallel()
	skipWithoutPostgres(t)
	plan := runnertest.ParsePlan(t, testRegistry, `version: 1
groups:
  - id: PR1
    runner: postgres
    postgres:
      dsn: embedded
      setup: ["CREATE TABLE outbox(id bigint PRIMARY KEY, sent_at timestamptz)"]
      statements:
        - {name: add, sql: "INSERT INTO outbox VALUES ($1, NULL)", args: [$seq]}
      verify:
        - {name: rows, sql: "SELECT count(*) FROM outbox WHERE sent_at IS NULL"}
    probes:
      - {name: backlog, interval: 200ms, timeout: 2s, sql: "SELECT count(*) FROM outbox WHERE sent_at IS NULL", dsn: embedded}
    load: {rate: 200, max_in_flight: 8}
    duration: 2s
`, nil)
	run := engine.NewRun(plan, testRegistry, t.TempDir(), "test")
	defer run.Close() // stops the group's embedded cluster
	s, err := run.Session(context.Background(), plan.Groups[0])
	if err != nil {
		t.Fatal(err)
	}
	st := runnertest.RunSession(t, context.Background(), s).Steps[0]
	p, ok := st.Probes["backlog"]
	if !ok {
		t.Fatalf("no backlog probe in %+v", st.Probes)
	}
	if p.Errors != 0 || p.Samples < 5 {
		t.Fatalf("%d samples, %d errors (events %+v); want 5 or more reads and no errors", p.Samples, p.Errors, st.Events)
	}
	var maxGrowth float64
	for i := 1; i < len(p.Series); i++ {
		d := p.Series[i].Value - p.Series[i-1].Value
		if d < 0 {
			t.Errorf("backlog fell at %d: %v", i, p.Series)
		}
		maxGrowth = max(maxGrowth, d)
	}
	if p.SlopePerMin <= 0 || p.Last <= p.Min {
		t.Errorf("slope %g/min, min %g, last %g: want a rising series", p.SlopePerMin, p.Min, p.Last)
	}
	t.Logf("backlog: %d reads, min %g, last %g, slope %.0f/min", p.Samples, p.Min, p.Last, p.SlopePerMin)
	var final float64
	for _, c := range st.Checks {
		if c.Name == "rows" {
			final = c.Value
		}
	}
	if final < p.Last || final-p.Last > maxGrowth+float64(st.Drained) {
		t.Errorf("final count %g, last read %g: want it within one interval's growth (%g) and the drain's %d", final, p.Last, maxGrowth, st.Drained)
	}
}
