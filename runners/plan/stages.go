package plan

import (
	"fmt"
	"math"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// MaxStages bounds an open loop's rate stages (load.stages).
const MaxStages = 100

// RampLinear is the one ramp a stage may give: the rate moves linearly
// from the previous stage's rate (0 before the first) to the stage's.
const RampLinear = "linear"

// Stage is one stage of an open loop's rate (load.stages): it holds Rate
// arrivals per second for For, or with Ramp "linear" moves from the
// previous stage's rate to Rate over For. After the last stage nothing
// is sent: a step is as long as its stages, or shorter.
type Stage struct {
	Rate float64  `yaml:"rate,required"`
	For  Duration `yaml:"for,required"`
	Ramp string   `yaml:"ramp"`
	Pos  Pos      `yaml:"-"`
}

// StagesLength is how long the load's stages last together (0 without
// stages): a step's duration when the group gives none.
func (l Load) StagesLength() time.Duration {
	var sum time.Duration
	for _, s := range l.Stages {
		sum += s.For.D()
	}
	return sum
}

// PeakRate is the highest rate the load asks: its rate, or its highest
// stage's.
func (l Load) PeakRate() float64 {
	peak := l.Rate
	for _, s := range l.Stages {
		peak = max(peak, s.Rate)
	}
	return peak
}

// stagesProblem is the first thing wrong with the load's stages, or nil.
func (l Load) stagesProblem() *loadProblem {
	if len(l.Stages) == 0 {
		return nil
	}
	bad := func(i int, key, format string, args ...any) *loadProblem {
		return &loadProblem{key: fmt.Sprintf("load.stages[%d].%s", i, key), msg: fmt.Sprintf(format, args...), pos: l.Stages[i].Pos}
	}
	if l.Rate > 0 {
		return &loadProblem{key: "load.stages", msg: "give rate (a fixed rate) or stages, not both", pos: l.Stages[0].Pos}
	}
	if len(l.Stages) > MaxStages {
		return bad(MaxStages, "rate", "more than %d stages", MaxStages)
	}
	for i, s := range l.Stages {
		switch {
		case math.IsNaN(s.Rate) || s.Rate < 0 || s.Rate > MaxRate:
			return bad(i, "rate", "want 0 to %d arrivals/s, got %v", MaxRate, s.Rate)
		case s.For.D() <= 0:
			return bad(i, "for", "want a positive duration, got %s", s.For.D())
		case s.Ramp != "" && s.Ramp != RampLinear:
			return bad(i, "ramp", "want %q (or leave it out: the stage holds its rate), got %q", RampLinear, s.Ramp)
		}
	}
	if l.PeakRate() == 0 {
		return &loadProblem{key: "load.stages", msg: "every stage's rate is 0: the load would send nothing", pos: l.Stages[0].Pos}
	}
	return nil
}

// stagesSwept reports a sweep of `rate` on a load with stages, at the
// sweep key's line: the stages set the rate. A group's own load is swept
// by `rate`, a load of `loads:` by `loads.NAME.rate`.
func (d *decoder) stagesSwept(n *yaml.Node, g *Group) {
	sweep := mappingValue(n, "sweep")
	if sweep == nil || sweep.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(sweep.Content); i += 2 {
		k := sweep.Content[i]
		staged := k.Value == "rate" && len(g.Load.Stages) > 0
		for _, l := range g.Loads {
			staged = staged || (k.Value == loadsKey+l.Name+".rate" && len(l.Load.Stages) > 0)
		}
		if staged {
			d.errorf(k, fmt.Sprintf("group %s: sweep.%s", g.ID, k.Value), "the load's stages set its rate: sweep max_in_flight, or write a group per stage list")
		}
	}
}

// stagesDuration gives a group without a duration its stages' length:
// its load's, or the longest of its loads'. A counted group keeps none.
func (g *Group) stagesDuration() {
	if g.Duration.D() != 0 || g.Counted() {
		return
	}
	length := g.Load.StagesLength()
	for _, l := range g.Loads {
		length = max(length, l.Load.StagesLength())
	}
	g.Duration = Duration{length}
}

// stagesCap is the longest a group's step may run: its own load's
// stages' length (after them nothing is sent), else no cap (0).
func (g *Group) stagesCap() time.Duration { return g.Load.StagesLength() }

// stagesOutlasted is the problem of a duration longer than the group's
// stages, or nil.
func (g *Group) stagesOutlasted() error {
	if length := g.stagesCap(); length > 0 && g.Duration.D() > length {
		return Errorf(g.Pos, fmt.Sprintf("group %s: duration", g.ID), "%s outlasts the load's stages (%s in all): nothing is sent after them; leave duration out, or shorten it", g.Duration.D(), length)
	}
	return nil
}

// stagesLabel names a staged step by its stages' rates: "stages=10,200".
func stagesLabel(l Load) string {
	rates := make([]string, len(l.Stages))
	for i, s := range l.Stages {
		rates[i] = num(s.Rate)
	}
	return "stages=" + strings.Join(rates, ",")
}
