package plan

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"
	"unicode"
)

// validate checks what the decoder cannot: references between parts of
// the plan, load shapes and each runner kind's own rules.
func (p *Plan) validate(schema Schema) []error {
	var errs []error
	if p.Version != 1 {
		errs = append(errs, Errorf(Pos{File: p.Path, Line: 1, Column: 1}, "version", "unsupported version %d (want 1)", p.Version))
	}
	for name, t := range p.Targets {
		if t != nil { // an empty target is a decoding problem already
			errs = append(errs, t.validate(name)...)
			errs = append(errs, t.validateServer(name)...)
		}
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

// ShutdownRunner is the runner that signals its group's target.
const ShutdownRunner = "shutdown"

// SignalRefusal says why benchtui will not signal pid, "" when it will:
// pid 1 (init, or in a container the container itself), benchtui itself,
// or benchtui's own parent (the shell or program that started it). A
// target attached by pid is refused by the plan's validation; one whose
// pid is known only at run time, when it is signalled (runners/watch).
func SignalRefusal(pid int) string {
	switch pid {
	case 1:
		return "pid 1 is init (in a container, the container itself)"
	case os.Getpid():
		return fmt.Sprintf("pid %d is benchtui itself", pid)
	case os.Getppid():
		return fmt.Sprintf("pid %d is benchtui's own parent (what started it)", pid)
	}
	return ""
}

// signalRefusal says why benchtui will not signal the target, attached by
// pid, "" when it will (SignalRefusal).
func (t *TargetSpec) signalRefusal() string {
	if t.PID == 0 {
		return ""
	}
	return SignalRefusal(t.PID)
}

func (t *TargetSpec) validate(name string) []error {
	if !validID.MatchString(name) {
		return []error{Errorf(t.Pos, "targets", "%q: want 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit (it names log files)", name)}
	}
	ways := 0
	for _, set := range []bool{len(t.Command) > 0, t.PID > 0, t.PIDFile != "", t.Cgroup != "", t.Container != ""} {
		if set {
			ways++
		}
	}
	if ways != 1 {
		return []error{Errorf(t.Pos, "targets."+name, "give exactly one of command, pid, pidfile, cgroup, container")}
	}
	if errs := t.containerProblems(name); len(errs) > 0 {
		return errs
	}
	if _, err := ParseReady(t.Ready, false); err != nil {
		return []error{Errorf(t.Pos, "targets."+name+".ready", "%v", err)}
	}
	if t.Tree && (t.Cgroup != "" || t.Container != "") {
		return []error{Errorf(t.Pos, "targets."+name+".tree", "a cgroup is sampled whole: tree is for command, pid or pidfile")}
	}
	// A cgroup folder's files are checked when the target is attached
	// (runners/watch), and by `benchtui doctor`: the plan checks syntax.
	return nil
}

func (p *Plan) validateGroup(g *Group, schema Schema) []error {
	var errs []error
	at := func(key, format string, args ...any) {
		errs = append(errs, Errorf(g.Pos, fmt.Sprintf("group %s: %s", g.ID, key), format, args...))
	}
	if g.ID != "" && !validID.MatchString(g.ID) { // a missing id is the decoder's to report
		// The id names files and shows on screen: say what it is, escaped
		// (every message's text is escaped too: see PosError.Error).
		errs = append(errs, Errorf(g.Pos, "id", "%q: want 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit (it names artifact files)", g.ID))
	}
	if strings.ContainsFunc(g.Title, unicode.IsControl) || len(g.Title) > maxTitle {
		at("title", "want one line of at most %d bytes without control characters, got %q", maxTitle, g.Title)
	}
	errs = append(errs, p.targetProblems(g)...)
	if t := p.Targets[g.Target]; g.Runner == ShutdownRunner && t != nil && t.signalRefusal() != "" {
		at("target", "runner shutdown signals target %q, and %s: benchtui refuses to signal it", g.Target, t.signalRefusal())
	}
	if g.OnTargetExit != "" && g.OnTargetExit != "stop" && g.OnTargetExit != "continue" {
		at("on_target_exit", "want stop or continue, got %q", g.OnTargetExit)
	}
	errs = append(errs, g.validateLoad()...)
	if err := g.stagesOutlasted(); err != nil { // a group's own load: one of loads: may stop before the others
		errs = append(errs, err)
	}
	if err := g.loadData(p.Path); err != nil {
		errs = append(errs, err) // before the kind's checks: its templates read the columns
	}
	errs = append(errs, g.varProblems()...)
	errs = append(errs, g.validateLoads()...)
	g.addMetricProbes(p.metricProbes(g))
	errs = append(errs, g.validateProbes()...)
	errs = append(errs, g.validateSeriesRule()...)
	errs = append(errs, g.Thresholds.validate(g.ID)...)
	errs = append(errs, p.checkRefProblems(g)...)
	errs = append(errs, p.validateActions(g)...)
	errs = append(errs, g.validateWindows()...)
	errs = append(errs, p.validateTasks(g)...)
	known, kindErrs := schema.ValidateGroup(g)
	if !known {
		at("runner", "unknown runner %q (known: %s)", g.Runner, strings.Join(schema.KindNames(), ", "))
	}
	return append(errs, kindErrs...)
}

// validID is what a group id may be: it names artifact files, and shows
// in the console and in reports.
var validID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// maxTitle bounds a group title, which the console shows on one line.
const maxTitle = 200

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
	if p := g.Load.problem(); p != nil {
		pos := g.Pos
		if p.pos.Line > 0 {
			pos = p.pos
		}
		errs = append(errs, Errorf(pos, fmt.Sprintf("group %s: %s", g.ID, p.key), "%s", p.msg))
	}
	if g.Repeat < 0 || g.Repeat > MaxRepeat {
		at("repeat", "want 1 to %d runs of each step, got %d", MaxRepeat, g.Repeat)
	}
	if b := g.Block.D(); b != 0 && b < MinBlock {
		at("block", "%s is shorter than the engine's %s tick: a block is at least one tick", b, MinBlock)
	}
	errs = append(errs, g.sweepProblems()...)
	errs = append(errs, g.countProblems()...)
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
	if !l.OpenLoop() && l.Concurrency == 0 && g.Sweep["concurrency"] == nil && g.Sweep["rate"] == nil {
		at("load", "give concurrency or rate")
	}
	if g.Duration.D() <= 0 && !g.Counted() {
		at("duration", "missing (required for %s; or give iterations or per_worker_iterations)", g.Runner)
	}
	if g.PerWorkerIterations > 0 && (l.OpenLoop() || g.Sweep["rate"] != nil) {
		at("per_worker_iterations", "an open loop's arrivals belong to no worker: give iterations (the arrivals in all)")
	}
	return errs
}

// NoCounts are the problems of a group whose runner drives itself (SSE
// subscribers, spawn cycles, shutdown): it has no operations the engine
// could count, so iterations and per_worker_iterations do not apply.
func (g *Group) NoCounts() []error {
	if !g.Counted() {
		return nil
	}
	return []error{Errorf(g.Pos, fmt.Sprintf("group %s: iterations", g.ID), "runner %s drives its own load; iterations and per_worker_iterations apply to http, postgres and quic", g.Runner)}
}

// countProblems checks iterations, per_worker_iterations and
// max_duration, whichever kind drives the load.
func (g *Group) countProblems() []error {
	var errs []error
	at := func(key, format string, args ...any) {
		errs = append(errs, Errorf(g.Pos, fmt.Sprintf("group %s: %s", g.ID, key), format, args...))
	}
	switch {
	case g.Iterations < 0 || g.Iterations > MaxIterations:
		at("iterations", "want 1 to %d operations, got %d", int64(MaxIterations), g.Iterations)
	case g.PerWorkerIterations < 0 || g.PerWorkerIterations > MaxIterations:
		at("per_worker_iterations", "want 1 to %d operations, got %d", int64(MaxIterations), g.PerWorkerIterations)
	case g.Iterations > 0 && g.PerWorkerIterations > 0:
		at("iterations", "give iterations (in all) or per_worker_iterations, not both")
	}
	if g.MaxDuration.D() < 0 {
		at("max_duration", "must not be negative")
	}
	if !g.Counted() {
		if g.MaxDuration.D() != 0 {
			at("max_duration", "caps a step that ends after a count: give iterations or per_worker_iterations, or use duration")
		}
		return errs
	}
	if g.Duration.D() > 0 {
		at("duration", "a counted step ends after its iterations: write the cap as max_duration (default %s)", DefaultMaxDuration)
	}
	if g.Warmup.D() > 0 {
		at("warmup", "a counted step sends exactly its iterations: run a warmup as a group of its own")
	}
	if g.Soak != nil {
		at("soak", "a counted step ends after its iterations: it cannot be extended")
	}
	return errs
}

// withoutEchoes drops the validation problems that only repeat a decoding
// problem (a bad duration also reads as a missing one), so that validation
// can run on a plan with decoding problems and report its own at once.
func withoutEchoes(decodeErrs, validateErrs []error, groups []*Group) []error {
	failed := map[string]bool{}
	for _, e := range decodeErrs {
		if pe, ok := e.(*PosError); ok {
			failed[decodedField(pe.Key)] = true
		}
	}
	index := map[string]int{}
	for i := len(groups) - 1; i >= 0; i-- {
		index[groups[i].ID] = i
	}
	var out []error
	for _, e := range validateErrs {
		pe, ok := e.(*PosError)
		if !ok || !failed[validatedField(pe.Key, index)] {
			out = append(out, e)
		}
	}
	return out
}

// decodedField names the field of a decoder's key ("groups[2].load.rate")
// as "groups[2].load"; a top-level key names itself.
func decodedField(key string) string {
	if !strings.HasPrefix(key, "groups[") {
		return firstSegment(key)
	}
	group, rest, _ := strings.Cut(key, ".")
	return group + "." + firstSegment(rest)
}

// validatedField names the field of a validation key ("group G1:
// load.rate") the way decodedField does.
func validatedField(key string, index map[string]int) string {
	rest, ok := strings.CutPrefix(key, "group ")
	if !ok {
		return firstSegment(key)
	}
	id, field, ok := strings.Cut(rest, ": ")
	i, known := index[id]
	if !ok || !known {
		return key
	}
	return fmt.Sprintf("groups[%d].%s", i, firstSegment(field))
}

func firstSegment(key string) string {
	if i := strings.IndexAny(key, ".["); i >= 0 {
		return key[:i]
	}
	return key
}
