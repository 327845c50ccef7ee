package ui

import (
	"testing"

	"github.com/benchtui/benchtui/runners/engine"
)

// BenchmarkFrame is the cost of drawing one frame of a running group with
// a baseline at 120x36; the console draws at most ten a second.
func BenchmarkFrame(b *testing.B) {
	m := New(Config{Plan: testPlan(), Dir: "bench-results", Started: t0})
	m.Update(sizeMsg(120, 36))
	running(b, m, engine.StateRunning, true)
	snap := runningSnapshot(engine.StateRunning, true)
	snap.Series = series(600, 5900, 1.2, 0.01)
	m.Update(SnapshotMsg{Group: 0, Sess: m.groups[0].sess, Snap: snap})
	b.ReportAllocs()
	for b.Loop() {
		m.render()
	}
}

// BenchmarkSnapshotUpdate is the cost of taking in one snapshot (the
// model only keeps it and marks the frame dirty).
func BenchmarkSnapshotUpdate(b *testing.B) {
	m := New(Config{Plan: testPlan(), Dir: "bench-results", Started: t0})
	running(b, m, engine.StateRunning, true)
	msg := SnapshotMsg{Group: 0, Sess: m.groups[0].sess, Snap: runningSnapshot(engine.StateRunning, true)}
	m.groups[0].cmpBusy = true
	b.ReportAllocs()
	for b.Loop() {
		m.Update(msg)
	}
}
