package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	artcompare "github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/runners/engine"
)

// g5Config is G5's config as the engine writes it into the artifact: the
// plan group as written.
func g5Config() map[string]any {
	return map[string]any{"id": "G5", "runner": "http", "duration": "300s", "load": map[string]any{"concurrency": 50},
		"soak": map[string]any{"extend_while_rss_rising": map[string]any{
			"slope_mb_per_min": 1, "step": "60s", "max": "540s"}}}
}

// autoExtended is n extensions by G5's soak policy, every 60 s from 300 s.
func autoExtended(n int) []artifacts.Event {
	var evs []artifacts.Event
	for i := range n {
		evs = append(evs, artifacts.Event{T: float64(300 + 60*i), Kind: artifacts.EventExtended,
			Note: "+1m0s RSS rising 24.80 MB/min > 1 MB/min"})
	}
	return evs
}

// soakSnapshot is G5 at t seconds of its measured phase after n
// extensions, its RSS climbing 26 MB/min.
func soakSnapshot(t time.Duration, n int, phase engine.Phase) engine.Snapshot {
	pts := series(60, 3100, 2.4, 26*t.Minutes()/60)
	for i := range pts {
		pts[i].T = float64(i+1) * t.Seconds() / 60
	}
	return engine.Snapshot{
		GroupID: "G5", State: engine.StateRunning, Phase: phase, Step: 1, Steps: 1, StepLabel: "concurrency=50", Label: "concurrency=50",
		Elapsed: t, Planned: 300*time.Second + time.Duration(n)*time.Minute,
		Interval: engine.Stats{Requests: 775, RPS: 3100, P50: 2.41, P90: 5.2, P99: 14.9, Max: 33},
		Total:    engine.Stats{Requests: int64(3100 * t.Seconds()), RPS: 3098.2, P50: 2.4, P90: 5.1, P99: 14.2, Max: 61},
		InFlight: 50, Target: &engine.ProcSample{RSSMB: pts[59].RSSMB, FDs: 64}, TargetName: "api",
		Self:   &engine.ProcSample{RSSMB: 31, FDs: 14},
		RSS:    engine.RSSTrend{Slope: 27.1, SE: 0.8, SpanS: t.Seconds(), Rising: true, Tail: 26.04, TailWindowS: 60, TailAbove: true},
		Series: pts, Events: autoExtended(n),
		Extended: time.Duration(n) * time.Minute, SoakLeft: max(0, 240*time.Second-time.Duration(n)*time.Minute),
	}
}

// soakArtifact is G5's run that the soak policy extended to its cap (four
// minutes on 300 s) with RSS still rising: a suspected leak.
func soakArtifact() *artifacts.Artifact {
	a := artifact(t0, 3100, 2.4)
	a.Group = artifacts.Group{ID: "G5", Title: "Sustained baseline + memory", Runner: "http", Config: g5Config()}
	s := &a.Steps[0]
	s.Label, s.DurationS, s.Events = "concurrency=50", 540, autoExtended(4)
	s.Checks = []artifacts.Check{{Name: "p99 <= 50ms", OK: true, Value: 14.2}}
	s.Target = &artifacts.TargetStats{RSSMB: artifacts.Range{Start: 40, Peak: 270.1, End: 270.1},
		RSSSlopeMBPerMin: 26.1, RSSTailSlopeMBMin: 26.04, TailWindowS: 60, FDs: artifacts.Range{Start: 12, Peak: 66, End: 64}}
	return a
}

// endRun drives group i through a whole run: started, one last snapshot,
// the session's end, and its final export of art.
func endRun(t *testing.T, m *Model, i int, snap engine.Snapshot, art *artifacts.Artifact) {
	t.Helper()
	sess, err := engine.NewSession(testRegistry, m.cfg.Plan, m.cfg.Plan.Groups[i], engine.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m.sel, m.active = i, i
	m.Update(startedMsg{group: i, sess: sess, at: t0})
	m.Update(SnapshotMsg{Group: i, Sess: sess, Snap: snap})
	m.Update(endedMsg{group: i, sess: sess})
	m.Update(exportedMsg{group: i, path: "bench-results/" + artifacts.FileName(art.Group.ID, t0), art: art, final: true})
}

// withBaseline gives G1 an earlier run as baseline.
func withBaseline(m *Model) {
	m.Update(baselineMsg{group: 0, path: "bench-results/G1-1796040000000.json", art: artifact(t0.Add(-time.Hour), 6100, 1.1)})
}

// compareWith judges cur against G1's baseline, as the compare Cmd does.
func compareWith(m *Model, cur *artifacts.Artifact) {
	base := m.groups[0].base
	cmp := artcompare.Compare([]*artifacts.Artifact{base}, []*artifacts.Artifact{cur}, artcompare.CompareOptions{})
	m.Update(CompareMsg{Group: 0, Cmp: cmp, base: base})
}

// groupRow is the list's row of group id, its columns squeezed to one
// space: "▸ G1 ✓ pass".
func groupRow(screen, id string) string {
	for _, l := range strings.Split(screen, "\n") {
		left, _, _ := strings.Cut(l, "│")
		if f := strings.Fields(left); len(f) > 1 && (f[0] == id || f[1] == id) {
			return strings.Join(f, " ")
		}
	}
	return ""
}

func doneSnapshot() engine.Snapshot {
	s := runningSnapshot(engine.StateRunning, false)
	s.Phase, s.Elapsed = engine.PhaseDone, s.Planned
	return s
}

// endings are the console's three ends of a run: G1 passing, G1 failing
// two thresholds, and G5's soak capped with RSS still rising.
var endings = []struct {
	name  string
	group int
	art   func() *artifacts.Artifact
	snap  func() engine.Snapshot
	row   string   // the group's row of the list, spaces squeezed
	want  []string // on screen at every size
}{
	{"pass", 0, func() *artifacts.Artifact {
		a := artifact(t0, 6100, 1.1) // as fast as the baseline
		a.Steps[0].Checks = []artifacts.Check{{Name: "p99 <= 50ms", OK: true, Value: 7.8}, {Name: "error_rate <= 0", OK: true}}
		return a
	}, doneSnapshot, "▸ G1 ✓ pass", []string{"ended ✓ pass"}},
	{"failed", 0, func() *artifacts.Artifact {
		a := artifact(t0, 5400, 1.5)
		a.Steps[0].Checks = []artifacts.Check{{Name: "p99 <= 5ms", Value: 9.75},
			{Name: "error_rate <= 0", Value: 0.0004}, {Name: "rps >= 5000", OK: true, Value: 5400}}
		return a
	}, doneSnapshot, "▸ G1 ✗ 2", []string{"ended ✗ 2 checks failed", "✗ p99 <= 5ms: was 9.75 ms", "✗ error_rate <= 0: was 0.0004"}},
	{"leak", 1, soakArtifact, func() engine.Snapshot { return soakSnapshot(540*time.Second, 4, engine.PhaseDone) },
		"▸ G5 ⚠ leak", []string{"ended ⚠ leak suspected", "auto-extended 4/4 (+4m0s)", "tail slope", "+26.0", "leak suspected"}},
}

func TestGoldenEndings(t *testing.T) {
	for _, e := range endings {
		for _, sz := range sizes {
			t.Run(e.name+"-"+sz.name, func(t *testing.T) {
				m := newTestModel(t, sz.w, sz.h)
				art := e.art()
				if e.group == 0 {
					withBaseline(m)
				}
				endRun(t, m, e.group, e.snap(), art)
				if e.group == 0 { // the comparison the final export asks for
					compareWith(m, art)
				}
				s := screen(m)
				checkShape(t, s, sz.w, sz.h)
				for _, want := range e.want {
					if !strings.Contains(s, want) {
						t.Errorf("no %q on screen", want)
					}
				}
				if row := groupRow(s, e.art().Group.ID); !strings.HasPrefix(row, e.row) || strings.Contains(row, "done") {
					t.Errorf("list row %q, want %q: how the run ended, not done", row, e.row)
				}
				golden(t, "ended-"+e.name+"-"+sz.name, s)
			})
		}
	}
}

// TestGoldenSoakRunning shows the soak's verdict while it runs: extended
// twice of four, RSS still rising, the same words the artifact will end with.
func TestGoldenSoakRunning(t *testing.T) {
	for _, sz := range sizes {
		t.Run(sz.name, func(t *testing.T) {
			m := newTestModel(t, sz.w, sz.h)
			sess, err := engine.NewSession(testRegistry, m.cfg.Plan, m.cfg.Plan.Groups[1], engine.SessionOptions{})
			if err != nil {
				t.Fatal(err)
			}
			m.sel, m.active = 1, 1
			m.Update(startedMsg{group: 1, sess: sess, at: t0})
			m.Update(SnapshotMsg{Group: 1, Sess: sess, Snap: soakSnapshot(400*time.Second, 2, engine.PhaseMeasure)})
			s := screen(m)
			checkShape(t, s, sz.w, sz.h)
			for _, want := range []string{"G5 running", "auto-extended 2/4 · +2m0s", "next check in 20s", "leak suspected: tail slope"} {
				if !strings.Contains(s, want) {
					t.Errorf("no %q on screen", want)
				}
			}
			golden(t, "soak-running-"+sz.name, s)
		})
	}
}

// TestEndingFromDisk: a console opened later shows the same ending
// from the newest artifact on disk, partial or not, while its baseline is
// the newest whole run.
func TestEndingFromDisk(t *testing.T) {
	m := newTestModel(t, 80, 24)
	whole, cut := artifact(t0.Add(-2*time.Hour), 6000, 1.1), artifact(t0.Add(-time.Hour), 2000, 1.3)
	cut.Run.Partial = true
	cut.Steps[0].Events = []artifacts.Event{{T: 9, Kind: artifacts.EventStopped, Note: "by the operator"}}
	m.Update(baselineMsg{group: 0, path: "bench-results/G1-1.json", art: whole, newest: cut})
	s := screen(m)
	if row := groupRow(s, "G1"); row != "▸ G1 stopped" {
		t.Errorf("list row %q, want the stopped run's ending", row)
	}
	for _, want := range []string{"last run stopped (by the operator)", "baseline G1-1.json"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q on screen:\n%s", want, s)
		}
	}
}

// TestSoakCountLiveAndAtTheEnd: with e pressed once (+1m, which counts
// toward the policy's max) and two auto-extensions, the soak line reads
// 2/3 while the step runs and the ending reads 2/3 once it ended: the
// same count of possible extensions. The live figures are the engine's
// (SoakLeft is the budget less every extension).
func TestSoakCountLiveAndAtTheEnd(t *testing.T) {
	byHand := artifacts.Event{T: 330, Kind: artifacts.EventExtended, Note: "+1m0s by the operator"}
	events := append(autoExtended(2), byHand)
	m := newTestModel(t, 120, 36)
	sess, err := engine.NewSession(testRegistry, m.cfg.Plan, m.cfg.Plan.Groups[1], engine.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m.sel, m.active = 1, 1
	m.Update(startedMsg{group: 1, sess: sess, at: t0})
	snap := soakSnapshot(400*time.Second, 2, engine.PhaseMeasure)
	snap.Events, snap.Extended = events, 3*time.Minute
	snap.SoakLeft = 240*time.Second - snap.Extended
	m.Update(SnapshotMsg{Group: 1, Sess: sess, Snap: snap})
	if s := screen(m); !strings.Contains(s, "auto-extended 2/3 · +2m0s · e added +1m0s") {
		t.Errorf("live soak line, want 2/3:\n%s", s)
	}
	art := soakArtifact()
	art.Steps[0].Events = events
	m.Update(endedMsg{group: 1, sess: sess})
	m.Update(exportedMsg{group: 1, path: "bench-results/" + artifacts.FileName("G5", t0), art: art, final: true})
	if s := screen(m); !strings.Contains(s, "auto-extended 2/3 (+2m0s)") {
		t.Errorf("ending, want 2/3 as live:\n%s", s)
	}
}
