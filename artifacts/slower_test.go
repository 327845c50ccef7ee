package artifacts

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// stackProfile is a profile of the given sample types whose samples are
// stacks (leaf first, "a;b;c") with their values.
func stackProfile(types []string, stacks map[string][]int64) *profile.Profile {
	p := &profile.Profile{PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 1}
	for _, ty := range types {
		p.SampleType = append(p.SampleType, &profile.ValueType{Type: ty, Unit: "count"})
	}
	locs := map[string]*profile.Location{}
	loc := func(fn string) *profile.Location {
		if l := locs[fn]; l != nil {
			return l
		}
		f := &profile.Function{ID: uint64(len(p.Function) + 1), Name: fn}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f}}}
		p.Function, p.Location, locs[fn] = append(p.Function, f), append(p.Location, l), l
		return l
	}
	for stack, values := range stacks {
		s := &profile.Sample{Value: values}
		for _, fn := range strings.Split(stack, ";") {
			s.Location = append(s.Location, loc(fn))
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

func cpuOf(stacks map[string]int64) *profile.Profile {
	m := map[string][]int64{}
	for k, v := range stacks {
		m[k] = []int64{v, v * 10_000_000}
	}
	return stackProfile([]string{"samples", "cpu"}, m)
}

// TestWhatGotSlowerRanksByShare: a function that takes half the CPU of
// the current profile and none of the base's heads the list, its caller
// (cum only) after it; a function whose share fell is not listed, even if
// its samples grew in number.
func TestWhatGotSlowerRanksByShare(t *testing.T) {
	base := cpuOf(map[string]int64{"pkg/demo.work;main.serve": 80, "runtime.gc": 20})
	cur := cpuOf(map[string]int64{"pkg/demo.slowPath;main.serve": 100, "pkg/demo.work;main.serve": 90, "runtime.gc": 10})
	got := WhatGotSlower(base, cur)
	if len(got) != 2 {
		t.Fatalf("got %+v, want slowPath then main.serve", got)
	}
	if f := got[0]; f.Function != "pkg/demo.slowPath" || f.BaseFlat != 0 || f.CurrentFlat != 0.5 || f.CurrentCum != 0.5 {
		t.Errorf("first %+v, want pkg/demo.slowPath at 0 → 50%%", f)
	}
	if f := got[1]; f.Function != "main.serve" || f.Growth() != 0 || f.BaseCum != 0.8 || f.CurrentCum != 0.95 {
		t.Errorf("second %+v, want main.serve, cum 80%% → 95%%", f)
	}
	if WhatGotSlower(nil, cur) != nil || WhatGotSlower(base, cpuOf(nil)) != nil {
		t.Error("a missing base or an empty current profile gave functions")
	}
	if got := WhatGotSlower(cpuOf(nil), cur); len(got) != 4 || got[0].Function != "pkg/demo.slowPath" || got[1].Function != "pkg/demo.work" {
		t.Errorf("against an idle base: %+v, want every function, slowPath first", got)
	}
}

// TestWhatGrewBySite: in-use bytes are added up by the allocating
// function (the leaf), and only the sites that gained are listed.
func TestWhatGrewBySite(t *testing.T) {
	types := []string{"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"}
	start := stackProfile(types, map[string][]int64{"demo.leak;main.serve": {1, 1000, 1, 1000}, "demo.cache": {1, 5000, 1, 5000}})
	end := stackProfile(types, map[string][]int64{"demo.leak;main.serve": {9, 9000, 9, 9000}, "demo.cache": {1, 5000, 1, 4000}})
	got := WhatGrew(start, end)
	if len(got) != 1 || got[0].Function != "demo.leak" || got[0].Grew() != 8000 {
		t.Errorf("got %+v, want only demo.leak +8000", got)
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
		if got := ShortFunction(in); got != want {
			t.Errorf("ShortFunction(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestParseProfileBounds: a gzip'd profile round-trips, text is refused,
// and a profile decompressing past the bound is refused without being
// held whole.
func TestParseProfileBounds(t *testing.T) {
	var b bytes.Buffer
	if err := cpuOf(map[string]int64{"f": 1}).Write(&b); err != nil {
		t.Fatal(err)
	}
	if p, err := ParseProfile(b.Bytes()); err != nil || len(p.Sample) != 1 {
		t.Errorf("round trip: %v", err)
	}
	if _, err := ParseProfile([]byte("heap profile: 1: 2 [3: 4] @ heap/1048576\n")); err == nil {
		t.Error("the text form parsed")
	}
	defer func(was int) { maxProfileData = was }(maxProfileData)
	maxProfileData = 1 << 20
	var bomb bytes.Buffer
	gz := gzip.NewWriter(&bomb)
	gz.Write(make([]byte, maxProfileData+1))
	gz.Close()
	if _, err := ParseProfile(bomb.Bytes()); err == nil || !strings.Contains(err.Error(), "larger than 1 MiB decompressed") {
		t.Errorf("a bomb past the bound: %v", err)
	}
}

// TestReportWhatGotSlower: two runs of a group whose CPU profiles sit
// beside them give the report a "What got slower" table headed by the
// function that took the current run's CPU; a step whose RSS rose gets
// "What grew" from its heap profiles; a profile named but missing is a
// warning, not a failure.
func TestReportWhatGotSlower(t *testing.T) {
	dir := t.TempDir()
	writeProfile(t, dir, "base-cpu.pb.gz", cpuOf(map[string]int64{"x/demo.work;main.serve": 80, "runtime.gc": 20}))
	writeProfile(t, dir, "cur-cpu.pb.gz", cpuOf(map[string]int64{"x/demo.slowPath;main.serve": 60, "x/demo.work;main.serve": 30, "runtime.gc": 10}))
	types := []string{"inuse_objects", "inuse_space"}
	writeProfile(t, dir, "cur-heap-start.pb.gz", stackProfile(types, map[string][]int64{"x/demo.leak": {1, 1_000_000}}))
	writeProfile(t, dir, "cur-heap-end.pb.gz", stackProfile(types, map[string][]int64{"x/demo.leak": {9, 9_500_000}}))
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	run := func(at time.Time, profiles map[string]string) *Artifact {
		return &Artifact{Schema: Schema, Dir: dir, Group: Group{ID: "G1"}, Run: Run{ID: "r", Started: at},
			Steps: []Step{{Label: "", DurationS: 2, Profiles: profiles}}}
	}
	base := run(t0, map[string]string{"cpu": "base-cpu.pb.gz"})
	cur := run(t0.Add(time.Hour), map[string]string{"cpu": "cur-cpu.pb.gz", "heap_start": "cur-heap-start.pb.gz", "heap_end": "cur-heap-end.pb.gz"})
	cur.Steps[0].Target = &TargetStats{RSSRising: true, RSSSlopeMBPerMin: 30}
	got := strings.Join(strings.Fields(Report([]*Artifact{base, cur})), " ")
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
	if got := Report([]*Artifact{base, cur}); !strings.Contains(got, "profiles: cpu: reading profile") {
		t.Errorf("a missing profile is no warning:\n%s", got)
	}
}

// writeProfile saves p in dir as name.
func writeProfile(t *testing.T, dir, name string, p *profile.Profile) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
}
