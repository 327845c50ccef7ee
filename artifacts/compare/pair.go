package compare

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/benchtui/benchtui/artifacts"
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
// BASE". A group or load missing on its side is an error naming it.
func ComparePairs(base, current []*artifacts.Artifact, pairs []Pair, opts CompareOptions) (Comparison, error) {
	opts = opts.withDefaults()
	b, c := artifacts.NewestByGroup(base), artifacts.NewestByGroup(current)
	var out Comparison
	for _, p := range pairs {
		ba, err := pairSide(b, p.Base)
		if err != nil {
			return out, fmt.Errorf("pair %s: base: %w", p, err)
		}
		ca, err := pairSide(c, p.Current)
		if err != nil {
			return out, fmt.Errorf("pair %s: current: %w", p, err)
		}
		ba.Group.ID = p.Current + " vs " + p.Base
		ca.Group.ID = ba.Group.ID
		byPosition(ba, ca)
		compareGroup(&out, ba, ca, opts)
	}
	out.Geomean = geomeans(out.Rows)
	return out, nil
}

// byPosition labels the steps of two groups alike, "CURRENT vs BASE",
// when their labels differ but their number does not (two groups' steps
// are often labelled apart: a sweep's against a loads group's), so that
// steps pair by position; else steps pair by label, as in Compare.
func byPosition(b, c *artifacts.Artifact) {
	if len(b.Steps) != len(c.Steps) {
		return
	}
	same := true
	for i := range b.Steps {
		same = same && b.Steps[i].Label == c.Steps[i].Label
	}
	if same {
		return
	}
	b.Steps, c.Steps = slices.Clone(b.Steps), slices.Clone(c.Steps)
	for i := range b.Steps {
		label := stepName(c.Steps[i].Label) + " vs " + stepName(b.Steps[i].Label)
		b.Steps[i].Label, c.Steps[i].Label = label, label
	}
}

// pairSide is a copy of group id's artifact (GROUP or GROUP/LOAD: that
// load's figures as the steps').
func pairSide(by map[string]*artifacts.Artifact, id string) (*artifacts.Artifact, error) {
	group, load, isLoad := strings.Cut(id, "/")
	a := by[group]
	if a == nil {
		return nil, fmt.Errorf("no artifact of group %q (groups: %s)", group, strings.Join(slices.Sorted(maps.Keys(by)), ", "))
	}
	cp := *a
	if !isLoad {
		return &cp, nil
	}
	cp.Steps = make([]artifacts.Step, len(a.Steps))
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
func loadAsStep(s *artifacts.Step, load string) (*artifacts.Step, error) {
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
				ls.ByName = map[string]artifacts.NamedStep{}
			}
			ls.ByName[sub] = v
		}
	}
	return ls, nil
}
