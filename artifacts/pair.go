package artifacts

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Pair names two groups to compare, the current side's group Current
// judged against the base side's group Base, such as two arms of one run
// (arm B against arm A). Either may name one load of a group that ran
// several (`loads:`) as GROUP/LOAD: that load's figures are then the
// group's, and its named requests (LOAD/NAME) are named NAME.
type Pair struct{ Base, Current string }

// ParsePair reads "BASE=CURRENT" (each GROUP or GROUP/LOAD).
func ParsePair(s string) (Pair, error) {
	b, c, ok := strings.Cut(s, "=")
	if !ok || b == "" || c == "" {
		return Pair{}, fmt.Errorf("pair %q: want BASE=CURRENT, two group ids (or GROUP/LOAD)", s)
	}
	return Pair{Base: b, Current: c}, nil
}

// String is the pair as written: "BASE=CURRENT".
func (p Pair) String() string { return p.Base + "=" + p.Current }

// ComparePairs compares, for each pair, the newest artifact of group
// p.Current among current with the newest of group p.Base among base, as
// Compare compares one group with itself; the rows' group is "CURRENT vs
// BASE". A group or load missing on its side is a warning.
func ComparePairs(base, current []*Artifact, pairs []Pair, opts CompareOptions) Comparison {
	opts = opts.withDefaults()
	b, c := newestByGroup(base), newestByGroup(current)
	var out Comparison
	for _, p := range pairs {
		ba, err := pairSide(b, p.Base)
		if err != nil {
			out.warn(fmt.Sprintf("pair %s: base: %v", p, err))
			continue
		}
		ca, err := pairSide(c, p.Current)
		if err != nil {
			out.warn(fmt.Sprintf("pair %s: current: %v", p, err))
			continue
		}
		ba.Group.ID = p.Current + " vs " + p.Base
		ca.Group.ID = ba.Group.ID
		compareGroup(&out, ba, ca, opts)
	}
	out.Geomean = geomeans(out.Rows)
	return out
}

// pairSide is a copy of group id's artifact (GROUP or GROUP/LOAD: that
// load's figures as the steps').
func pairSide(by map[string]*Artifact, id string) (*Artifact, error) {
	group, load, isLoad := strings.Cut(id, "/")
	a := by[group]
	if a == nil {
		return nil, fmt.Errorf("no artifact of group %q (groups: %s)", group, strings.Join(slices.Sorted(maps.Keys(by)), ", "))
	}
	cp := *a
	if !isLoad {
		return &cp, nil
	}
	cp.Steps = make([]Step, len(a.Steps))
	for i := range a.Steps {
		s, err := loadAsStep(&a.Steps[i], load)
		if err != nil {
			return nil, fmt.Errorf("group %s step %s: %w", group, stepName(a.Steps[i].Label), err)
		}
		cp.Steps[i] = *s
	}
	return &cp, nil
}

// loadAsStep is one load's figures of a step as a step of their own, its
// named requests (LOAD/NAME) named NAME.
func loadAsStep(s *Step, load string) (*Step, error) {
	n, ok := s.ByName[load]
	if !ok || strings.Contains(load, "/") {
		var loads []string
		for name := range s.ByName {
			if !strings.Contains(name, "/") {
				loads = append(loads, name)
			}
		}
		slices.Sort(loads)
		return nil, fmt.Errorf("no load %q (has: %s)", load, strings.Join(loads, ", "))
	}
	ls := namedAsStep(s, n)
	ls.Params, ls.Target = s.Params, s.Target
	for name, v := range s.ByName {
		if sub, ok := strings.CutPrefix(name, load+"/"); ok {
			if ls.ByName == nil {
				ls.ByName = map[string]NamedStep{}
			}
			ls.ByName[sub] = v
		}
	}
	return ls, nil
}
