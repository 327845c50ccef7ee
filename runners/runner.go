// Package runners is benchtui's runner API: what a protocol runner
// implements (Runner, Worker, Driver) and what it is given (StepEnv, a
// Recorder per worker, the pause Gate, the watched target), the Kind that
// names a runner in plans, and the Registry of kinds that cmd/benchtui
// builds and hands to the plan decoder, the engine and the console.
//
// The model: running a group is an engine.Session that walks the group's
// steps (one per sweep value). For each step the engine calls the group's
// Runner's Prepare, drives load for the warmup (not recorded) and then for
// the step's duration, and calls Finish. Load is driven either by the
// loops of runners/loop (loop.Closed: N workers back to back;
// loop.Open: arrivals due at start + i/rate, whatever the server does)
// calling each Worker's Do, or, when the Runner is also a Driver (SSE
// subscribers, spawn cycles, shutdown under load), by the runner itself.
//
// Protocol runners live in sub-packages (httpload, sse, pgload, redisload, quicload,
// spawn, shutdown), each exporting its Kind; nothing registers itself.
package runners

import (
	"context"
	"time"

	"github.com/benchtui/benchtui/runners/plan"
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
	// Finish runs after a step: verify queries, teardown. What it found
	// (checks, counters, extra figures) goes into the step's result.
	Finish(ctx context.Context, step *StepEnv, sum Summary) (Findings, error)
	// Close releases what the runner holds.
	Close() error
}

// Worker performs operations for one goroutine. A Worker is used by one
// goroutine at a time; the engine closes it when the step's load has
// drained.
type Worker interface {
	// Do performs one operation and reports how it went. ctx is cancelled
	// when the step's grace period for in-flight work ends.
	Do(ctx context.Context) Outcome
	// Close releases what the worker holds (its connection).
	Close() error
}

// Outcome is the result of one operation.
type Outcome struct {
	// Err is the error kind ("timeout", "refused", "status_5xx", a SQLSTATE
	// class, …), or "" when the operation succeeded.
	Err string
	// Detail is what the error said (a client's or a server's message),
	// "" for none: a step keeps a few per kind as its error samples.
	Detail string
	// Sent is when the operation actually went out, after any wait for a
	// pooled connection. Zero means when Do was called.
	Sent time.Time
	// Name is the plan's name of what was sent (a request's `name:`);
	// named operations get figures of their own (steps[].by_name).
	Name string
	// Status is the protocol's status code (an HTTP status), 0 when
	// there is none; the step counts operations by it (steps[].status).
	Status int
	// Exhausted says the worker had nothing left to send (a data file's
	// unique rows ran out): nothing was sent or recorded, and the engine's
	// loop ends the step's load.
	Exhausted bool
	// Backoff, when above 0, is how long a closed loop's worker waits
	// before its next operation (a flow whose session could not be
	// renewed backs off); the wait is in no operation's latency. An open
	// loop keeps its schedule.
	Backoff time.Duration
	// Recorded says the worker recorded what it sent itself (a flow's
	// steps, each under its name): the engine records nothing more.
	Recorded bool
}

// KindCanceled is the error kind of an operation still in flight when the
// step's grace for in-flight work ended: the step cut it, so it has no
// reply and no latency. It counts among the requests and errors but stays
// out of every latency figure (histograms, percentiles, samples).
const KindCanceled = "canceled"

// KindRenewal is the error kind of a flow's step that was not sent because
// its virtual user's session could not be renewed and the user is backing
// off (package flow): counted, but in no latency figure, as it has none.
const KindRenewal = "renewal"

// HasLatency reports whether an operation that ended with errKind has a
// latency to record: all but those cut (KindCanceled) or never sent
// (KindRenewal).
func HasLatency(errKind string) bool {
	return errKind != KindCanceled && errKind != KindRenewal
}

// Iterator is implemented by workers whose one operation is several
// requests (an iteration of a flow), each recorded by the worker itself.
// The engine calls Iterate instead of Do, with the time the iteration
// was due, which the first request's latency is measured from.
type Iterator interface {
	Iterate(ctx context.Context, due time.Time) Outcome
}

// Driver is implemented by runners that drive their own load instead of the
// engine's closed and open loops (SSE subscribers, spawn cycles, shutdown
// under load). Drive runs until ctx is done or its work is; it records
// through env.Recorder and honours env.Gate for pauses. The engine asks a
// Driver for no workers.
type Driver interface {
	Drive(ctx context.Context, env *StepEnv) error
}

// Summary is what a step measured, as Finish and step hooks may need it
// (a verify query compares rows against the accepted requests).
type Summary struct {
	Requests, Errors int64
	// GroupRequests and GroupErrors are the group's so far: the steps
	// before this one and this run of it ({{group.requests}}).
	GroupRequests, GroupErrors int64
	// ByName are the step's counts of each named request (or load), as
	// steps[].by_name has them ({{by_name.NAME.requests}}).
	ByName map[string]NamedCounts
	// Vars are the step's values of the group's vars (vars:), which a
	// verify entry reads ({{.N}}).
	Vars map[string]string
}

// NamedCounts are one named request's (or load's) counts in a step.
type NamedCounts struct{ Requests, Errors int64 }

// Findings are what a runner adds to a step's result after its load: checks
// (verify queries, a signal that never went), runner-specific counters and
// extra figures. The engine copies them into the step's artifact; a counter
// given here is the final count of its name, replacing what the step's
// recorders counted under it.
type Findings struct {
	Checks   []Check
	Counters map[string]int64
	Extra    map[string]any
}

// RunEnv is what a runner can use of the run it is part of.
type RunEnv struct {
	// Plan is the whole plan.
	Plan *plan.Plan
	// ArtifactsDir is where artifacts and logs go.
	ArtifactsDir string
	// Cleanup registers a function run when the whole run ends, on every way
	// out (embedded servers, for example).
	Cleanup func(func())
	// Group is what the runners of one group's several loads share (an
	// embedded database); nil outside a group with loads:.
	Group *Shared
	// Shard is the run's shard (inactive when it is not sharded): a kind
	// whose fast path does not split its load over shards takes another.
	Shard Shard
}
