// Package spawn holds benchtui's process runners: `spawn`, repeated cold
// starts of a command (seed group G11), and `shutdown`, a signal sent to the
// watched target while HTTP load runs (seed group G14).
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
// A shutdown step runs the group's HTTP load (httpload's workers) against
// the watched target, sends a frozen batch of slow requests just before
// `after`, signals the target, and sorts every request by when it ran
// against the signal: in flight at it (then completed or dropped), refused
// after it (counted apart, never as dropped work), or ordinary load. It
// waits for the exit up to `grace` (then kills the target) and reports the
// time to exit, the exit status and the check dropped_in_flight == 0.
//
// Both runners are Drivers: they run until their work is done (all cycles,
// or the target's exit) and then return from Drive, which ends the step.
package spawn

import (
	"fmt"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/target"
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
	Timeout runners.Duration `yaml:"timeout"`
	// StopGrace is how long a ready process may take to exit after SIGTERM
	// before its group is killed (default 2s).
	StopGrace runners.Duration `yaml:"stop_grace"`
}

// Defaults of the spawn section.
const (
	DefaultCycles    = 100
	DefaultTimeout   = 10 * time.Second
	DefaultStopGrace = 2 * time.Second
)

func init() {
	runners.RegisterSection("spawn", func() any { return &Spec{} })
	runners.RegisterSection("shutdown", func() any { return &ShutdownSpec{} })
	driven := func(*runners.Group) bool { return true }
	runners.RegisterKind(runners.Kind{Name: "spawn", Validate: validateSpawn, New: New, Driven: driven})
	runners.RegisterKind(runners.Kind{Name: "shutdown", Validate: validateShutdown, New: NewShutdown, Driven: driven, TargetExits: true})
}

func validateSpawn(g *runners.Group) []error {
	spec, _ := g.Section("spawn").(*Spec)
	if spec == nil {
		return []error{runners.Errorf(g.Pos, "group "+g.ID+": spawn", "missing (required for runner spawn)")}
	}
	errs := spec.Validate(g.SectionPos["spawn"], "group "+g.ID+": spawn")
	at := func(k, format string, args ...any) {
		errs = append(errs, runners.Errorf(g.Pos, "group "+g.ID+": "+k, format, args...))
	}
	if spec.Concurrency > 0 && (g.Load.Concurrency > 0 || g.Sweep["concurrency"] != nil) {
		at("spawn.concurrency", "give it in spawn or in load/sweep, not both")
	}
	if g.Load.Rate > 0 {
		at("load", "spawn cycles run back to back: give concurrency, not rate")
	}
	most := g.Load.Concurrency
	for _, v := range g.Sweep["concurrency"] {
		most = max(most, int(v))
	}
	if r, err := parseReady(spec.Ready); err == nil && most > 1 && (r.Kind == target.ReadyTCP || r.Kind == target.ReadyHTTP) {
		at("load.concurrency", "cycles that wait on a fixed address cannot overlap; use ready: exit or stdout:/regex/")
	}
	return errs
}

// Validate reports every problem of the section at once; pos is where it
// starts and key names it in messages.
func (s *Spec) Validate(pos runners.Pos, key string) []error {
	var errs []error
	at := func(k, format string, args ...any) {
		errs = append(errs, runners.Errorf(pos, key+"."+k, format, args...))
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
	if err == nil && s.Concurrency > 1 && (r.Kind == target.ReadyTCP || r.Kind == target.ReadyHTTP) {
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
		s.Timeout = runners.Duration{Duration: DefaultTimeout}
	}
	if s.StopGrace.D() <= 0 {
		s.StopGrace = runners.Duration{Duration: DefaultStopGrace}
	}
	return s
}

// New builds the spawn runner of a group.
func New(g *runners.Group, _ *runners.RunEnv) (runners.Runner, error) {
	spec, _ := g.Section("spawn").(*Spec)
	if spec == nil {
		return nil, fmt.Errorf("group %s has no spawn section", g.ID)
	}
	return NewRunner(spec)
}
