package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
)

// slowerModel is an idle console whose G1 has a baseline an hour old and
// a latest result, each with a CPU profile in dir, the latest with heap
// profiles and RSS still rising: demo.slowPath took 60% of the latest's
// CPU, demo.leak gained 8.5 MB.
func slowerModel(t *testing.T, w, h int) *Model {
	dir := t.TempDir()
	artifactstest.WriteProfile(t, dir, "base-cpu.pb.gz", artifactstest.CPUProfile(map[string]int64{
		"x/demo.work;x/demo.(*Handler).ServeHTTP": 80, "runtime.gcBgMarkWorker": 20}))
	artifactstest.WriteProfile(t, dir, "cur-cpu.pb.gz", artifactstest.CPUProfile(map[string]int64{
		"x/demo.slowPath;x/demo.work;x/demo.(*Handler).ServeHTTP": 60, "x/demo.work;x/demo.(*Handler).ServeHTTP": 30, "runtime.gcBgMarkWorker": 10}))
	artifactstest.WriteProfile(t, dir, "cur-heap-start.pb.gz", artifactstest.HeapProfile(map[string]int64{"x/demo.(*Handler).leak": 1_000_000}))
	artifactstest.WriteProfile(t, dir, "cur-heap-end.pb.gz", artifactstest.HeapProfile(map[string]int64{"x/demo.(*Handler).leak": 9_500_000}))
	base, cur := artifact(t0.Add(-time.Hour), 6100, 1.1), artifact(t0, 5400, 1.5)
	base.Dir, cur.Dir = dir, dir
	base.Steps[0].Profiles = map[string]string{"cpu": "base-cpu.pb.gz"}
	cur.Steps[0].Profiles = map[string]string{"cpu": "cur-cpu.pb.gz", "heap_start": "cur-heap-start.pb.gz", "heap_end": "cur-heap-end.pb.gz"}
	cur.Steps[0].Target = &artifacts.TargetStats{RSSRising: true, RSSSlopeMBPerMin: 12}
	m := newTestModel(t, w, h)
	m.Update(baselineMsg{group: 0, path: "bench-results/G1-1796036400000.json", art: base, newest: cur})
	return m
}

// TestGoldenSlower: w shows, per step, the functions whose share of CPU
// grew from the baseline's profile to the latest result's, demo.slowPath
// first, and the allocation sites whose bytes in use grew in a step whose
// RSS rose.
func TestGoldenSlower(t *testing.T) {
	for _, sz := range sizes {
		t.Run(sz.name, func(t *testing.T) {
			m := slowerModel(t, sz.w, sz.h)
			if m.groups[0].last == nil {
				t.Fatal("no latest result")
			}
			l := newLoop(t, m)
			l.send(press("w"), func() bool { v := m.groups[0].slower; return v != nil && !v.busy })
			s := screen(m)
			checkShape(t, s, sz.w, sz.h)
			_, below, _ := strings.Cut(s, "function (CPU share)")
			if first := strings.SplitN(below, "\n", 3)[1]; !strings.HasPrefix(first, "demo.slowPath ") {
				t.Errorf("what got slower is headed by %q, want demo.slowPath:\n%s", first, s)
			}
			if sz.h > 20 && !strings.Contains(s, "demo.(*Handler).leak") {
				t.Errorf("no allocation site that grew:\n%s", s)
			}
			golden(t, "slower-"+sz.name, s)
		})
	}
}

// TestSlowerWithoutProfiles: a group never run has nothing to show; one
// whose runs saved no profiles says how to get them.
func TestSlowerWithoutProfiles(t *testing.T) {
	m := newTestModel(t, 80, 24)
	m.Update(press("w"))
	if s := screen(m); !strings.Contains(s, "no result of G1 yet (enter runs it)") {
		t.Errorf("no result:\n%s", s)
	}
	m.Update(press("esc"))
	m.Update(baselineMsg{group: 0, path: "bench-results/G1-1796036400000.json", art: artifact(t0.Add(-time.Hour), 6100, 1.1), newest: artifact(t0, 5400, 1.5)})
	l := newLoop(t, m)
	l.send(press("w"), func() bool { v := m.groups[0].slower; return v != nil && !v.busy })
	if s := screen(m); !strings.Contains(s, "no profiles to compare: the target's pprof: {url: …/heap, cpu: true} saves them") {
		t.Errorf("no profiles:\n%s", s)
	}
}

// TestSlowerLatestIsTheBaseline: in a console just opened the latest
// result is the baseline; w says to run the group, not that profiles
// are missing.
func TestSlowerLatestIsTheBaseline(t *testing.T) {
	m := newTestModel(t, 120, 36)
	a := artifact(t0.Add(-time.Hour), 6100, 1.1)
	m.Update(baselineMsg{group: 0, path: "bench-results/G1-1796043600000.json", art: a, newest: a})
	l := newLoop(t, m)
	l.send(press("w"), func() bool { v := m.groups[0].slower; return v != nil && !v.busy })
	s := screen(m)
	if !strings.Contains(s, "the latest result is the baseline (G1-1796043600000.json): run the group (enter) or pick an older baseline (b)") || strings.Contains(s, "no profiles") {
		t.Errorf("latest is the baseline:\n%s", s)
	}
}
