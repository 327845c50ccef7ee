package engine

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/probe"
)

// State is where a session or step stands.
type State string

// Session states.
const (
	StateIdle    State = "idle"
	StateRunning State = "running"
	StatePaused  State = "paused"
	StateDone    State = "done"
	StateFailed  State = "failed"
)

// Phase is the part of a step being run.
type Phase string

// Step phases.
const (
	PhasePrepare Phase = "prepare"
	PhaseWarmup  Phase = "warmup"
	PhaseMeasure Phase = "measure"
	PhaseDrain   Phase = "drain"
	PhaseDone    Phase = "done"
)

// Stats are latency and rate figures over some span of a step.
type Stats struct {
	Requests int64
	Errors   int64
	Dropped  int64
	RPS      float64
	// Latency percentiles in milliseconds (from the due time).
	P50, P90, P99, Max float64
}

// ProcSample is one reading of a process's resources.
type ProcSample struct {
	RSSMB float64
	// WorkingSetMB is a cgroup's working set (the kubelet's), PSSMB a
	// process tree's PSS; 0 when the target is not read so.
	WorkingSetMB, PSSMB float64
	FDs                 int
	Threads             int
	CPUCores            float64
	// CPUSeconds is the CPU time (user and system) the target has used
	// so far: a process tree's living processes', a cgroup's whole.
	CPUSeconds float64
	// PID is the process sampled, 0 when not known (a cgroup); it changes
	// when a restart action replaces the target.
	PID int
}

// Snapshot is an immutable view of a running group, published every tick.
// Consumers may keep it; nothing in it is shared with the engine.
type Snapshot struct {
	GroupID   string
	State     State
	Phase     Phase
	Step      int // 1-based
	Steps     int
	StepLabel string
	// Label is the step's label in the artifact (StepLabel without the
	// run of a repeated step).
	Label string
	// Elapsed is active (unpaused) time in the current phase; Planned is the
	// phase's length including extensions.
	Elapsed, Planned time.Duration
	Paused           time.Duration
	// Count is how many operations the step ends after (iterations, or
	// per_worker_iterations times the workers); zero for a timed step,
	// whose Planned is its length rather than a cap.
	Count int64
	// Interval covers the last tick; Total the step's measured part so far.
	Interval, Total Stats
	// TotalHist is Total's latency histogram, encoded, in a shard of a
	// distributed run only (its live lines carry it; "" otherwise).
	TotalHist string
	// TotalLatency is Total's latency histogram (µs, the artifact's
	// range), a copy of its own, for an Observer that asks for it
	// (LatencyObserver); nil otherwise.
	TotalLatency *hdrhistogram.Histogram
	// ByName is Total for each named request (the plan's `name:`).
	ByName     map[string]Stats
	ErrorKinds map[string]int64
	// Counters are the runner's counters so far (reconnects, …).
	Counters map[string]int64
	InFlight int
	// Target is the watched target's latest sample, nil without a target.
	// TargetName says whose figures they are.
	Target     *ProcSample
	TargetName string
	// Others are the latest samples of the group's further targets
	// (`target: [api, worker]`), in the plan's order; a nil ProcSample is
	// one not read (yet).
	Others []NamedSample
	// Self is benchtui's own process.
	Self *ProcSample
	// RSS is the target's (else benchtui's) RSS trend so far.
	RSS RSSTrend
	// Extended is how much the step's measured phase was lengthened so
	// far, by the soak policy and the operator. SoakLeft is how much more
	// the soak policy may add, zero without one: its max is the step's
	// whole length, so an operator's extension counts toward it.
	Extended, SoakLeft time.Duration
	// Probes are the group's probes' figures so far, in the plan's order.
	Probes []probe.Live
	// Series is the step's thinned time series so far.
	Series []artifacts.Point
	// Events of the current step so far.
	Events []artifacts.Event
	// Err is set when the session failed.
	Err error
	// Finished steps, for the console's last-result column.
	Done []artifacts.Step
}

// RSSTrend is a target's RSS trend over the measured samples so far, the
// figures its artifact will end with: Slope ± SE in MB/min over SpanS
// seconds of wall clock (the artifact's rss_slope_mb_per_min, "slope,
// whole run"), Rising the verdict of artifacts.RSSRising on them (the ⚠
// "RSS still rising"), and Tail the slope over the last TailWindowS
// seconds, the one the soak policy extends on; TailAbove says it is above
// the policy's threshold (1 MB/min without a policy) over enough samples.
type RSSTrend struct {
	Slope, SE, SpanS  float64
	Rising            bool
	Tail, TailWindowS float64
	TailAbove         bool
}

// soakLimit is what the group's soak policy may add to a step in all:
// max is the step's total length (seed G5: "300 s, auto-extended up to
// 540 s"). Zero without a policy, and in a quick try (run --duration):
// a try of 3 s is not a soak, and once 5 samples show RSS rising it
// would run on to the plan's max.
func (st *stepRun) soakLimit() time.Duration {
	g := st.s.group
	if g.Soak == nil || g.Soak.ExtendWhileRSSRising == nil || st.s.opts.Duration > 0 {
		return 0
	}
	return max(0, g.Soak.ExtendWhileRSSRising.Max.D()-st.spec.Duration)
}
