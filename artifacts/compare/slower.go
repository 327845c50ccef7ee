package compare

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/google/pprof/profile"
)

// FunctionShare is one function's share of all CPU samples in a base and
// a current profile, flat (the samples in the function itself) and
// cumulative (in it or what it called), each a fraction of 1.
type FunctionShare struct {
	Function              string
	BaseFlat, CurrentFlat float64
	BaseCum, CurrentCum   float64
}

// Growth is how much the function's flat share grew, in fractions of 1
// (0.25 is 25 points).
func (f FunctionShare) Growth() float64 { return f.CurrentFlat - f.BaseFlat }

// cumGrowth is how much the function's cumulative share grew.
func (f FunctionShare) cumGrowth() float64 { return f.CurrentCum - f.BaseCum }

// WhatGotSlower lists the functions whose share of CPU grew from base to
// cur, the most grown first: by flat share, then cumulative share (a
// caller of what got slower comes after it), at most MaxFunctions. The
// samples are the "cpu" sample type's (nanoseconds), else the last's.
// Shares, not times, are compared: two runs of different lengths or
// loads still say where the time went. A base without samples (an idle
// server) has every function at 0%. Nil when either is nil.
func WhatGotSlower(base, cur *profile.Profile) []FunctionShare {
	if base == nil || cur == nil {
		return nil
	}
	b, c := cpuShares(base), cpuShares(cur)
	var out []FunctionShare
	for fn, cs := range c {
		bs := b[fn]
		f := FunctionShare{Function: fn, BaseFlat: bs.flat, CurrentFlat: cs.flat, BaseCum: bs.cum, CurrentCum: cs.cum}
		if f.Growth() > 0 || f.Growth() == 0 && f.cumGrowth() > 0 {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(x, y FunctionShare) int {
		return cmp.Or(cmp.Compare(y.Growth(), x.Growth()), cmp.Compare(y.cumGrowth(), x.cumGrowth()),
			cmp.Compare(x.Function, y.Function))
	})
	return out[:min(len(out), artifacts.MaxFunctions)]
}

// share is a function's flat and cumulative share of a profile.
type share struct{ flat, cum float64 }

// cpuShares are each function's shares of p's CPU samples; none when
// they add up to nothing.
func cpuShares(p *profile.Profile) map[string]share {
	if len(p.SampleType) == 0 {
		return nil
	}
	flat, cum := functionValues(p, sampleIndex(p, "cpu"))
	var total int64
	for _, v := range flat {
		total += v
	}
	if total <= 0 {
		return nil
	}
	out := make(map[string]share, len(cum))
	for fn, v := range cum {
		out[fn] = share{flat: float64(flat[fn]) / float64(total), cum: float64(v) / float64(total)}
	}
	return out
}

// functionValues adds up the value at index i of p's samples by
// function: flat, to the sample's leaf (the innermost inlined function of
// its first location); cumulative, to every function on its stack, once.
// A sample without a location counts in flat's total as "(unknown)".
func functionValues(p *profile.Profile, i int) (flat, cum map[string]int64) {
	flat, cum = map[string]int64{}, map[string]int64{}
	seen := map[string]bool{}
	for _, s := range p.Sample {
		if i >= len(s.Value) {
			continue
		}
		v := s.Value[i]
		flat[leafFunction(s)] += v
		clear(seen)
		for _, loc := range s.Location {
			for _, ln := range loc.Line {
				if fn := functionName(ln.Function); !seen[fn] {
					seen[fn] = true
					cum[fn] += v
				}
			}
		}
		if len(seen) == 0 {
			cum[leafFunction(s)] += v
		}
	}
	return flat, cum
}

// leafFunction is the function a sample was taken in.
func leafFunction(s *profile.Sample) string {
	if len(s.Location) == 0 || len(s.Location[0].Line) == 0 {
		return "(unknown)"
	}
	return functionName(s.Location[0].Line[0].Function)
}

// functionName is f's name as it may be printed: control characters
// made "?", at most maxFunctionName bytes (a profile is no trusted
// input); "(unknown)" without one.
func functionName(f *profile.Function) string {
	if f == nil || f.Name == "" {
		return "(unknown)"
	}
	name := f.Name
	if len(name) > maxFunctionName {
		name = strings.ToValidUTF8(name[:maxFunctionName], "") + "…"
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, name)
}

// maxFunctionName bounds a function's name as printed.
const maxFunctionName = 300

// SiteGrowth is one allocation site (the function that allocated) and
// the bytes in use it held at the start and the end of a step.
type SiteGrowth struct {
	Function   string
	Start, End int64
}

// Grew is how many bytes in use the site gained.
func (s SiteGrowth) Grew() int64 { return s.End - s.Start }

// WhatGrew lists the allocation sites whose bytes in use (the
// "inuse_space" sample type) grew from the start profile to the end
// profile, the most grown first, at most MaxFunctions: what a rising
// RSS is made of. Nil when either is nil.
func WhatGrew(start, end *profile.Profile) []SiteGrowth {
	if start == nil || end == nil || len(start.SampleType) == 0 || len(end.SampleType) == 0 {
		return nil
	}
	before, _ := functionValues(start, sampleIndex(start, "inuse_space"))
	after, _ := functionValues(end, sampleIndex(end, "inuse_space"))
	var out []SiteGrowth
	for fn, v := range after {
		if g := (SiteGrowth{Function: fn, Start: before[fn], End: v}); g.Grew() > 0 {
			out = append(out, g)
		}
	}
	slices.SortFunc(out, func(x, y SiteGrowth) int {
		return cmp.Or(cmp.Compare(y.Grew(), x.Grew()), cmp.Compare(x.Function, y.Function))
	})
	return out[:min(len(out), artifacts.MaxFunctions)]
}

// sampleIndex is the index of the sample type named name in p, else the
// last one (the default pprof shows).
func sampleIndex(p *profile.Profile, name string) int {
	for i, st := range p.SampleType {
		if st.Type == name {
			return i
		}
	}
	return len(p.SampleType) - 1
}
