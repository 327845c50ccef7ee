// Package runners is benchtui's engine and plan format.
//
// A plan (plan.yaml) names targets and bench groups. Running a group is a
// Session: it walks the group's steps (one per sweep value), and for each
// step prepares the group's Runner, drives load for the warmup (not
// recorded) and then for the step's duration, which Extend and the soak
// policy may lengthen and Pause may interrupt. Load is driven either by the
// engine's own loops (closed loop: N workers back to back; open loop:
// arrivals due at start + i/rate, whatever the server does) calling a
// Worker's Do, or, for runners whose operations are not request-shaped
// (Server-Sent Events, shutdown), by the runner itself as a Driver.
//
// Every operation is recorded into a sharded Recorder of HDR histograms; each
// tick (250 ms) the engine swaps the interval histograms out, merges them and
// publishes an immutable Snapshot on a newest-wins channel. At the end of a
// step the figures become an artifacts.Step.
//
// Protocol runners live in sub-packages and register themselves with
// RegisterKind and RegisterSection; the engine never imports them.
package runners

import (
	"context"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// Runner runs the operations of one bench group. The engine calls Prepare
// once per step before the warmup, NewWorker once per worker goroutine,
// Finish after the step's load has stopped, and Close when the group ends.
type Runner interface {
	// Prepare readies shared resources for a step (connection pools, setup
	// statements) before the clock starts, so their cost is not measured.
	Prepare(ctx context.Context, step *StepEnv) error
	// NewWorker returns the worker for one goroutine. rec is where the
	// worker records timings the engine cannot see (Recorder.Extra).
	NewWorker(id int, rec *Recorder) (Worker, error)
	// Finish runs after a step: verify queries, teardown. It may append
	// checks or extra figures to res.
	Finish(ctx context.Context, step *StepEnv, res *artifacts.Step) error
	// Close releases what the runner holds.
	Close() error
}

// Worker performs operations for one goroutine. A Worker is used by one
// goroutine at a time.
type Worker interface {
	// Do performs one operation and reports how it went. ctx is cancelled
	// when the step's grace period for in-flight work ends.
	Do(ctx context.Context) Outcome
}

// Outcome is the result of one operation.
type Outcome struct {
	// Err is the error kind ("timeout", "refused", "status_5xx", a SQLSTATE
	// class, …), or "" when the operation succeeded.
	Err string
	// Sent is when the operation actually went out, after any wait for a
	// pooled connection. Zero means when Do was called.
	Sent time.Time
}

// Driver is implemented by runners that drive their own load instead of the
// engine's closed and open loops (SSE subscribers, shutdown under load).
// Drive runs until ctx is done; it records through env.Recorder and honours
// env.Gate for pauses.
type Driver interface {
	Drive(ctx context.Context, env *StepEnv) error
}

// Kind is a runner kind of the plan's `runner:` key.
type Kind struct {
	// Name is the value of `runner:`.
	Name string
	// Validate reports problems of a group using this kind, beyond what the
	// plan decoder checks (a missing section, say).
	Validate func(g *Group) []error
	// New builds the runner for a group.
	New func(g *Group, env *RunEnv) (Runner, error)
	// Driven reports whether the runner is a Driver for this group. A nil
	// Driven means the engine's loops drive it.
	Driven func(g *Group) bool
	// TargetExits says the runner makes the target exit (shutdown under
	// load): the exit is recorded, but never stops the step, whatever
	// on_target_exit says.
	TargetExits bool
}

// RunEnv is what a runner can use of the run it is part of.
type RunEnv struct {
	// Plan is the whole plan.
	Plan *Plan
	// ArtifactsDir is where artifacts and logs go.
	ArtifactsDir string
	// Cleanup registers a function run when the whole run ends, on every way
	// out (embedded servers, for example).
	Cleanup func(func())
}

var (
	kinds     = map[string]Kind{}
	sections  = map[string]func() any{}
	stepHooks []StepHook
	checkers  []func(g *Group) []error
)

// RegisterGroupCheck adds a plan check run on every group, for sections
// that any runner's group may carry (such as `verify:`).
func RegisterGroupCheck(check func(g *Group) []error) { checkers = append(checkers, check) }

// StepHook runs after every step of every group, once its figures are
// final: group-level checks that belong to no runner, such as a `verify:`
// list reconciling accepted requests against database rows. It appends to
// res.Checks; an error is noted in the artifact.
type StepHook func(ctx context.Context, g *Group, res *artifacts.Step) error

// RegisterStepHook adds a hook run after every step.
func RegisterStepHook(h StepHook) { stepHooks = append(stepHooks, h) }

// RegisterKind makes a runner kind available to plans. It is meant to be
// called from the init function of the runner's package.
func RegisterKind(k Kind) { kinds[k.Name] = k }

// RegisterSection declares a group-level plan key (such as `http:`) whose
// value is decoded strictly into the value newSpec returns (a pointer to a
// struct with yaml tags). The decoded value is in Group.Sections.
func RegisterSection(name string, newSpec func() any) { sections[name] = newSpec }

// LookupKind returns the registered kind of that name.
func LookupKind(name string) (Kind, bool) {
	k, ok := kinds[name]
	return k, ok
}
