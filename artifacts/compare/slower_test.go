package compare_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/benchtui/benchtui/artifacts/artifactstest"
	"github.com/benchtui/benchtui/artifacts/compare"
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
