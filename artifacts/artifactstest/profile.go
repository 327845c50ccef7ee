package artifactstest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// StackProfile is a pprof profile of the given sample types whose samples
// are stacks (leaf first, "a;b;c") with their values, one per type.
func StackProfile(types []string, stacks map[string][]int64) *profile.Profile {
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

// CPUProfile is a CPU profile (samples, cpu) of stacks with their
// sample counts, 10 ms each.
func CPUProfile(stacks map[string]int64) *profile.Profile {
	m := map[string][]int64{}
	for k, v := range stacks {
		m[k] = []int64{v, v * 10_000_000}
	}
	return StackProfile([]string{"samples", "cpu"}, m)
}

// HeapProfile is a heap profile (inuse_objects, inuse_space) of stacks
// with their bytes in use, one object each.
func HeapProfile(stacks map[string]int64) *profile.Profile {
	m := map[string][]int64{}
	for k, v := range stacks {
		m[k] = []int64{1, v}
	}
	return StackProfile([]string{"inuse_objects", "inuse_space"}, m)
}

// WriteProfile saves p, gzip'd, in dir as name.
func WriteProfile(t testing.TB, dir, name string, p *profile.Profile) {
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
