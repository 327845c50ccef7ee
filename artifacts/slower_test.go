package artifacts_test

import (
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
	"github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/artifacts/report"
)

var cpuOf = artifactstest.CPUProfile

// TestWhatGotSlowerRanksByShare: a function that takes half the CPU of
// the current profile and none of the base's heads the list, its caller
// (cum only) after it; a function whose share fell is not listed, even if
// its samples grew in number.
func TestWhatGotSlowerRanksByShare(t *testing.T) {
	base := cpuOf(map[string]int64{"pkg/demo.work;main.serve": 80, "runtime.gc": 20})
	cur := cpuOf(map[string]int64{"pkg/demo.slowPath;main.serve": 100, "pkg/demo.work;main.serve": 90, "runtime.gc": 10})
	got := compare.WhatGotSlower(base, cur)
	if len(got) != 2 {
		t.Fatalf("got %+v, want slowPath then main.serve", got)
	}
	if f := got[0]; f.Function != "pkg/demo.slowPath" || f.BaseFlat != 0 || f.CurrentFlat != 0.5 || f.CurrentCum != 0.5 {
		t.Errorf("first %+v, want pkg/demo.slowPath at 0 → 50%%", f)
	}
	if f := got[1]; f.Function != "main.serve" || f.Growth() != 0 || f.BaseCum != 0.8 || f.CurrentCum != 0.95 {
		t.Errorf("second %+v, want main.serve, cum 80%% → 95%%", f)
	}
	if compare.WhatGotSlower(nil, cur) != nil || compare.WhatGotSlower(base, cpuOf(nil)) != nil {
		t.Error("a missing base or an empty current profile gave functions")
	}
	if got := compare.WhatGotSlower(cpuOf(nil), cur); len(got) != 4 || got[0].Function != "pkg/demo.slowPath" || got[1].Function != "pkg/demo.work" {
		t.Errorf("against an idle base: %+v, want every function, slowPath first", got)
	}
}

// TestWhatGrewBySite: in-use bytes are added up by the allocating
// function (the leaf), and only the sites that gained are listed.
func TestWhatGrewBySite(t *testing.T) {
	start := artifactstest.HeapProfile(map[string]int64{"demo.leak;main.serve": 1000, "demo.cache": 5000})
	end := artifactstest.HeapProfile(map[string]int64{"demo.leak;main.serve": 9000, "demo.cache": 4000})
	got := compare.WhatGrew(start, end)
	if len(got) != 1 || got[0].Function != "demo.leak" || got[0].Grew() != 8000 {
		t.Errorf("got %+v, want only demo.leak +8000", got)
	}
}

// TestFunctionNamesArePrintable: a profile's function names reach the
// screen and reports without control characters, bounded.
func TestFunctionNamesArePrintable(t *testing.T) {
	long := strings.Repeat("é", 400)
	got := compare.WhatGotSlower(cpuOf(nil), cpuOf(map[string]int64{"evil\x1b[2J\nname": 1, long: 1}))
	for _, f := range got {
		if strings.ContainsFunc(f.Function, unicode.IsControl) || len(f.Function) > 400 || !utf8.ValidString(f.Function) {
			t.Errorf("function %q: control characters, too long or not UTF-8", f.Function)
		}
	}
	if len(got) != 2 {
		t.Errorf("got %d functions, want 2", len(got))
	}
}

func TestShortFunction(t *testing.T) {
	for in, want := range map[string]string{
		"github.com/benchtui/benchtui/runners/demo.slowPath":     "demo.slowPath",
		"github.com/benchtui/benchtui/runners/demo.(*H).leak":    "demo.(*H).leak",
		"gopkg.in/yaml.v3.(*parser).parse":                       "yaml.v3.(*parser).parse",
		"example.com/a.F[go.shape.struct { X example.com/b.T }]": "a.F[go.shape.struct { X example.com/b.T }]",
		"runtime.mallocgc": "runtime.mallocgc",
	} {
		if got := artifacts.ShortFunction(in); got != want {
			t.Errorf("ShortFunction(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReportWhatGotSlower: two runs of a group whose CPU profiles sit
// beside them give the report a "What got slower" table headed by the
// function that took the current run's CPU; a step whose RSS rose gets
// "What grew" from its heap profiles; a profile named but missing is a
// warning, not a failure.
func TestReportWhatGotSlower(t *testing.T) {
	dir := t.TempDir()
	artifactstest.WriteProfile(t, dir, "base-cpu.pb.gz", cpuOf(map[string]int64{"x/demo.work;main.serve": 80, "runtime.gc": 20}))
	artifactstest.WriteProfile(t, dir, "cur-cpu.pb.gz", cpuOf(map[string]int64{"x/demo.slowPath;main.serve": 60, "x/demo.work;main.serve": 30, "runtime.gc": 10}))
	artifactstest.WriteProfile(t, dir, "cur-heap-start.pb.gz", artifactstest.HeapProfile(map[string]int64{"x/demo.leak": 1_000_000}))
	artifactstest.WriteProfile(t, dir, "cur-heap-end.pb.gz", artifactstest.HeapProfile(map[string]int64{"x/demo.leak": 9_500_000}))
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	run := func(at time.Time, profiles map[string]string) *artifacts.Artifact {
		return &artifacts.Artifact{Schema: artifacts.Schema, Dir: dir, Group: artifacts.Group{ID: "G1"}, Run: artifacts.Run{ID: "r", Started: at},
			Steps: []artifacts.Step{{Label: "", DurationS: 2, Profiles: profiles}}}
	}
	base := run(t0, map[string]string{"cpu": "base-cpu.pb.gz"})
	cur := run(t0.Add(time.Hour), map[string]string{"cpu": "cur-cpu.pb.gz", "heap_start": "cur-heap-start.pb.gz", "heap_end": "cur-heap-end.pb.gz"})
	cur.Steps[0].Target = &artifacts.TargetStats{RSSRising: true, RSSSlopeMBPerMin: 30}
	got := strings.Join(strings.Fields(report.Report([]*artifacts.Artifact{base, cur})), " ")
	for _, want := range []string{
		"### What got slower: CPU share by function",
		"| demo.slowPath | 0.0 | 60.0 | +60.0 | 0.0 | 60.0 |",
		"### What grew: heap in use by allocation site",
		"| demo.leak | 1.00 | 9.50 | +8.50 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if i, j := strings.Index(got, "| demo.slowPath |"), strings.Index(got, "| main.serve | 0.0 | 0.0 | +0.0 | 80.0 | 90.0 |"); i < 0 || j < i {
		t.Errorf("demo.slowPath does not head what got slower:\n%s", got)
	}
	cur.Steps[0].Profiles["cpu"] = "gone.pb.gz"
	cur.Steps[0].Profiles["heap_end"] = "../elsewhere.pb.gz"
	withWarnings := report.Report([]*artifacts.Artifact{base, cur})
	for _, want := range []string{"profiles: cpu: reading profile", `profiles: heap_end: profiles.heap_end "../elsewhere.pb.gz" is not a file name`} {
		if !strings.Contains(withWarnings, want) {
			t.Errorf("no warning %q:\n%s", want, withWarnings)
		}
	}
}
