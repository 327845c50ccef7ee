// Package spawn is benchtui's `spawn` runner: repeated cold starts of a
// command (seed group G11).
//
// A spawn cycle starts the command in a process group of its own and times
// it to ready: to its exit with status 0 (ready: exit), or until a TCP
// connection, an HTTP 2xx answer or a line of its output matching a regex
// shows it is up; it is then stopped (SIGTERM to its group, SIGKILL after a
// short grace) and reaped before the worker starts the next cycle. A cycle
// that exits otherwise, fails to start or runs past its timeout is an error
// of kind exit_<code>, signal_<name>, start_failed or timeout; a cycle that
// times out is killed with its whole group. Every child is waited for, so
// no zombie is left, and the group is swept with SIGKILL after each cycle,
// so no stray grandchild outlives it.
//
// The runner is a Driver: it runs until all its cycles are done and then
// returns from Drive, which ends the step.
//
// Process groups need a Unix: on windows Prepare fails with an error
// wrapping watch.ErrUnsupported.
package spawn

import (
	"fmt"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// Spec is the `spawn:` section of a group.
type Spec struct {
	// Command is the argv to start each cycle.
	Command []string `yaml:"command,required"`
	// Env is added to benchtui's environment.
	Env map[string]string `yaml:"env"`
	// Dir is the command's working directory.
	Dir string `yaml:"dir"`
	// Cycles is how many measured cycles to run (default 100).
	Cycles int `yaml:"cycles"`
	// Concurrency is how many cycles run at once (default 1).
	Concurrency int `yaml:"concurrency"`
	// Warmup is how many cycles to run, unrecorded, before the measured ones.
	Warmup int `yaml:"warmup"`
	// Ready is exit (default), tcp://host:port, http://… or https://… (a
	// self-signed certificate is accepted) or stdout:/regex/.
	Ready string `yaml:"ready"`
	// Timeout bounds one cycle's wait for ready (default 10s).
	Timeout plan.Duration `yaml:"timeout"`
	// StopGrace is how long a ready process may take to exit after SIGTERM
	// before its group is killed (default 2s).
	StopGrace plan.Duration `yaml:"stop_grace"`
}

// Defaults of the spawn section.
const (
	DefaultCycles    = 100
	DefaultTimeout   = 10 * time.Second
	DefaultStopGrace = 2 * time.Second
)

// Section is the plan key of the spawn section.
const Section = "spawn"

// CounterStopKilled counts the children that had to be killed, not
// having stopped within their grace.
const CounterStopKilled = "stop_killed"

// Kind is `runner: spawn`: repeated cold starts, driven by the runner
// itself (a Driver) until its cycles are done.
func Kind() runners.Kind {
	return runners.Kind{Name: "spawn", Sections: map[string]func() any{Section: func() any { return &Spec{} }}, Validate: validateSpawn, New: New,
		Counters: runners.FixedCounters(CounterStopKilled)}
}

func validateSpawn(g *plan.Group) []error {
	spec := plan.Section[Spec](g, Section)
	if spec == nil {
		return []error{plan.Errorf(g.Pos, "group "+g.ID+": spawn", "missing (required for runner spawn)")}
	}
	errs := append(spec.Validate(g.SectionPos[Section], "group "+g.ID+": spawn"), append(g.NoCounts(), g.NoData()...)...)
	at := func(k, format string, args ...any) {
		errs = append(errs, plan.Errorf(g.Pos, "group "+g.ID+": "+k, format, args...))
	}
	if spec.Concurrency > 0 && (g.Load.Concurrency > 0 || g.Sweep["concurrency"] != nil) {
		at("spawn.concurrency", "give it in spawn or in load/sweep, not both")
	}
	if g.Load.OpenLoop() {
		at("load", "spawn cycles run back to back: give concurrency, not rate")
	}
	most := g.Load.Concurrency
	for _, v := range g.Sweep["concurrency"] {
		most = max(most, int(v))
	}
	if r, err := parseReady(spec.Ready); err == nil && most > 1 && (r.Kind == plan.ReadyTCP || r.Kind == plan.ReadyHTTP) {
		at("load.concurrency", "cycles that wait on a fixed address cannot overlap; use ready: exit or stdout:/regex/")
	}
	return errs
}

// Validate reports every problem of the section at once; pos is where it
// starts and key names it in messages.
func (s *Spec) Validate(pos plan.Pos, key string) []error {
	var errs []error
	at := func(k, format string, args ...any) {
		errs = append(errs, plan.Errorf(pos, key+"."+k, format, args...))
	}
	if len(s.Command) == 0 || s.Command[0] == "" {
		at("command", "needs at least the program to run")
	}
	if s.Cycles < 0 || s.Concurrency < 0 || s.Warmup < 0 {
		at("cycles", "cycles, concurrency and warmup must not be negative")
	}
	r, err := parseReady(s.Ready)
	if err != nil {
		at("ready", "%v", err)
	}
	if err == nil && s.Concurrency > 1 && (r.Kind == plan.ReadyTCP || r.Kind == plan.ReadyHTTP) {
		at("concurrency", "cycles that wait on a fixed address cannot overlap; use ready: exit or stdout:/regex/")
	}
	return errs
}

// withDefaults fills the zero fields of s.
func (s Spec) withDefaults() Spec {
	if s.Cycles == 0 {
		s.Cycles = DefaultCycles
	}
	if s.Timeout.D() <= 0 {
		s.Timeout = plan.Duration{Duration: DefaultTimeout}
	}
	if s.StopGrace.D() <= 0 {
		s.StopGrace = plan.Duration{Duration: DefaultStopGrace}
	}
	return s
}

// New builds the spawn runner of a group.
func New(g *plan.Group, _ *runners.RunEnv) (runners.Runner, error) {
	spec := plan.Section[Spec](g, Section)
	if spec == nil {
		return nil, fmt.Errorf("group %s has no spawn section", g.ID)
	}
	return NewRunner(spec)
}
