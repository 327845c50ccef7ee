package plan

import (
	"fmt"
	"strings"
	"time"

	"github.com/benchtui/benchtui/runners/watch"
)

// validate checks what the decoder cannot: references between parts of
// the plan, load shapes and each runner kind's own rules.
func (p *Plan) validate(schema Schema) []error {
	var errs []error
	if p.Version != 1 {
		errs = append(errs, Errorf(Pos{File: p.Path, Line: 1, Column: 1}, "version", "unsupported version %d (want 1)", p.Version))
	}
	for name, t := range p.Targets {
		errs = append(errs, t.validate(name)...)
	}
	ids := map[string]bool{}
	for _, g := range p.Groups {
		if ids[g.ID] {
			errs = append(errs, Errorf(g.Pos, "id", "group %q given twice", g.ID))
		}
		ids[g.ID] = true
		errs = append(errs, p.validateGroup(g, schema)...)
	}
	return errs
}

func (t *TargetSpec) validate(name string) []error {
	ways := 0
	for _, set := range []bool{len(t.Command) > 0, t.PID > 0, t.PIDFile != "", t.Cgroup != ""} {
		if set {
			ways++
		}
	}
	if ways != 1 {
		return []error{Errorf(t.Pos, "targets."+name, "give exactly one of command, pid, pidfile, cgroup")}
	}
	if _, err := watch.ParseReady(t.Ready, false); err != nil {
		return []error{Errorf(t.Pos, "targets."+name+".ready", "%v", err)}
	}
	return nil
}

func (p *Plan) validateGroup(g *Group, schema Schema) []error {
	var errs []error
	at := func(key, format string, args ...any) {
		errs = append(errs, Errorf(g.Pos, fmt.Sprintf("group %s: %s", g.ID, key), format, args...))
	}
	if strings.ContainsAny(g.ID, "/\\ ") || g.ID == "" {
		at("id", "must be non-empty without spaces or slashes (it names artifact files)")
	}
	if g.Target != "" && p.Targets[g.Target] == nil {
		at("target", "no target named %q in targets", g.Target)
	}
	if g.OnTargetExit != "" && g.OnTargetExit != "stop" && g.OnTargetExit != "continue" {
		at("on_target_exit", "want stop or continue, got %q", g.OnTargetExit)
	}
	errs = append(errs, g.validateLoad()...)
	known, kindErrs := schema.ValidateGroup(g)
	if !known {
		at("runner", "unknown runner %q (known: %s)", g.Runner, strings.Join(schema.KindNames(), ", "))
	}
	return append(errs, kindErrs...)
}

// MaxRepeat bounds `repeat`: each run is one sample, and a comparison
// needs far fewer than this.
const MaxRepeat = 100

// MinBlock is the shortest sample block: the engine's tick, the finest
// interval it measures.
const MinBlock = 250 * time.Millisecond

// validateLoad checks the load's shape, whichever kind drives it.
func (g *Group) validateLoad() []error {
	var errs []error
	at := func(key, format string, args ...any) {
		errs = append(errs, Errorf(g.Pos, fmt.Sprintf("group %s: %s", g.ID, key), format, args...))
	}
	l := g.Load
	switch {
	case l.Rate < 0 || l.Concurrency < 0 || l.MaxInFlight < 0:
		at("load", "values must not be negative")
	case l.Rate > 0 && l.Concurrency > 0:
		at("load", "give concurrency (closed loop) or rate (open loop), not both")
	case l.Rate > 0 && l.MaxInFlight == 0:
		at("load.max_in_flight", "an open loop needs max_in_flight")
	}
	if g.Repeat < 0 || g.Repeat > MaxRepeat {
		at("repeat", "want 1 to %d runs of each step, got %d", MaxRepeat, g.Repeat)
	}
	if b := g.Block.D(); b != 0 && b < MinBlock {
		at("block", "%s is shorter than the engine's %s tick: a block is at least one tick", b, MinBlock)
	}
	for k, vals := range g.Sweep {
		if len(vals) == 0 {
			at("sweep."+k, "needs at least one value")
		}
	}
	if r := g.Soak; r != nil && r.ExtendWhileRSSRising != nil {
		rule := r.ExtendWhileRSSRising
		if rule.Step.D() <= 0 {
			at("soak.extend_while_rss_rising.step", "must be positive")
		}
		if rule.Max.D() < g.Duration.D() {
			at("soak.extend_while_rss_rising.max", "%s is shorter than duration %s: max is the step's total length, extensions included (for 300s extended by up to 240s, write max: 540s)", rule.Max.D(), g.Duration.D())
		}
	}
	return errs
}

// LoopProblems are the problems of a group whose load the engine's closed
// or open loop drives: it needs a concurrency or a rate, and a duration.
// Kinds whose runners are not Drivers call it from their Validate.
func (g *Group) LoopProblems() []error {
	var errs []error
	at := func(key, format string, args ...any) {
		errs = append(errs, Errorf(g.Pos, fmt.Sprintf("group %s: %s", g.ID, key), format, args...))
	}
	l := g.Load
	if l.Rate == 0 && l.Concurrency == 0 && g.Sweep["concurrency"] == nil && g.Sweep["rate"] == nil {
		at("load", "give concurrency or rate")
	}
	if g.Duration.D() <= 0 {
		at("duration", "missing (required for %s)", g.Runner)
	}
	return errs
}
