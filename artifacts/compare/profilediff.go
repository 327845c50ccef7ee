package compare

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/google/pprof/profile"
)

// Profile keys of a step's profiles (Step.Profiles) that DiffProfiles
// reads: the first target's.
const (
	ProfileCPU       = "cpu"
	ProfileHeapStart = "heap_start"
	ProfileHeapEnd   = "heap_end"
)

// ProfileDiff is what the profiles saved beside two runs of a group say
// of one step.
type ProfileDiff struct {
	Step string
	// CPU: both runs saved a CPU profile of the step and both were read;
	// Slower is then what got slower (WhatGotSlower), empty when nothing
	// did.
	CPU    bool
	Slower []FunctionShare
	// Grew is what the current step's heap gained from the start of its
	// measured phase to its end (WhatGrew), read only when the step's RSS
	// rose (a leak suspected or RSS still rising at the end).
	Grew []SiteGrowth
	// Problems are profiles the artifacts name that could not be read.
	Problems []string
}

// DiffProfiles reads the first target's profiles saved beside base and
// cur (their Dir) and compares them step by step (by label): the CPU
// profiles of base's and cur's step, and cur's heap profiles where its
// RSS rose. base may be nil (no baseline: only what grew). Steps with
// nothing to say are left out.
func DiffProfiles(base, cur *artifacts.Artifact) []ProfileDiff {
	var out []ProfileDiff
	for i := range cur.Steps {
		s := &cur.Steps[i]
		d := ProfileDiff{Step: s.Label}
		if base != nil {
			if bs := base.StepLabeled(s.Label); bs != nil {
				d.slower(base, bs, cur, s)
			}
		}
		if rssRose(cur, i) {
			start := d.read(cur, s, ProfileHeapStart)
			end := d.read(cur, s, ProfileHeapEnd)
			d.Grew = WhatGrew(start, end)
		}
		if d.CPU || len(d.Grew) > 0 || len(d.Problems) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// slower compares the CPU profiles of step bs of base and s of cur.
func (d *ProfileDiff) slower(base *artifacts.Artifact, bs *artifacts.Step, cur *artifacts.Artifact, s *artifacts.Step) {
	if bs.Profiles[ProfileCPU] == "" || s.Profiles[ProfileCPU] == "" {
		return
	}
	b, c := d.read(base, bs, ProfileCPU), d.read(cur, s, ProfileCPU)
	if b != nil && c != nil {
		d.CPU, d.Slower = true, WhatGotSlower(b, c)
	}
}

// read reads one profile of the step, noting a failure in d.Problems.
func (d *ProfileDiff) read(a *artifacts.Artifact, s *artifacts.Step, key string) *profile.Profile {
	p, err := stepProfile(a, s, key)
	if err != nil {
		d.Problems = append(d.Problems, fmt.Sprintf("%s: %v", key, err))
	}
	return p
}

// rssRose: the i-th step of a is suspected of a leak or ended with a
// target's RSS still rising (StepOutcome).
func rssRose(a *artifacts.Artifact, i int) bool {
	e := artifacts.StepOutcome(a, i)
	return e.Leak() || len(e.Rising) > 0
}

// stepProfile reads the step's profile saved as key ("cpu", "heap_end")
// beside the artifact; nil and no error when the step has none or the
// artifact's folder is unknown (one read from a log of framed artifacts).
// A name that is not a plain file name is refused: it could point
// anywhere.
func stepProfile(a *artifacts.Artifact, s *artifacts.Step, key string) (*profile.Profile, error) {
	name := s.Profiles[key]
	if name == "" || a.Dir == "" {
		return nil, nil
	}
	if filepath.Base(name) != name || name == ".." || strings.ContainsAny(name, `/\`) {
		return nil, fmt.Errorf("profiles.%s %q is not a file name", key, name)
	}
	return artifacts.LoadProfile(filepath.Join(a.Dir, name))
}
