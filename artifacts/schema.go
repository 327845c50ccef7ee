// Package artifacts defines the benchtui.artifact/v1 file format: one JSON
// document per bench group per run, holding every step's figures, its HDR
// histogram, a thinned time series, the watched target's resource use, checks
// and events. It writes artifacts atomically and reads them back strictly;
// artifacts/compare compares them, artifacts/report reports them and
// artifacts/merge joins a distributed run's shards. It knows nothing of
// runners, so an artifact written by an old benchtui stays readable by a new
// one.
package artifacts

import "time"

// Schema is the value of the "schema" field of every artifact this package writes.
const Schema = "benchtui.artifact/v1"

// Artifact is one group's results for one run.
type Artifact struct {
	Schema string   `json:"schema"`
	Run    Run      `json:"run"`
	Group  Group    `json:"group"`
	Steps  []Step   `json:"steps"`
	Notes  []string `json:"notes"`
	// Shard is set on a shard's artifact and on a merge of shards
	// (shard.go).
	Shard *ShardInfo `json:"shard,omitempty"`
	// Dir is the folder the artifact was read from, where the files its
	// steps name (profiles, interval logs) are; "" for one decoded from
	// bytes or read from a log of framed artifacts. Never written.
	Dir string `json:"-"`
}

// Run describes the run that produced an artifact.
type Run struct {
	ID          string    `json:"id"`
	Started     time.Time `json:"started"`
	Finished    time.Time `json:"finished"`
	Partial     bool      `json:"partial"`
	Host        Host      `json:"host"`
	ToolVersion string    `json:"tool_version"`
	// VCSRevision is the version-control revision benchtui was built from
	// (debug.ReadBuildInfo's vcs.revision), when known.
	VCSRevision string `json:"vcs_revision,omitempty"`
	PlanSHA256  string `json:"plan_sha256"`
}

// Host describes the machine a run ran on.
type Host struct {
	OS   string `json:"os"`
	CPUs int    `json:"cpus"`
	Go   string `json:"go"`
}

// Group identifies the bench group and its (redacted) configuration.
type Group struct {
	ID     string         `json:"id"`
	Title  string         `json:"title"`
	Runner string         `json:"runner"`
	Config map[string]any `json:"config"`
	// ConfigAsWritten is the group as the plan wrote it, ${VAR}s
	// unexpanded, with the run's overrides (--duration, --count) applied:
	// two runs of one plan have the same, whatever ports or tokens their
	// environments gave.
	ConfigAsWritten map[string]any `json:"config_as_written,omitempty"`
}

// Step holds the figures of one step of a group: one sweep value, or the
// whole group when it has no sweep.
type Step struct {
	Label  string             `json:"label"`
	Params map[string]float64 `json:"params"`
	// Vars are the step's values of the group's vars (vars:).
	Vars      map[string]string `json:"vars,omitempty"`
	DurationS float64           `json:"duration_s"`
	PausedS   float64           `json:"paused_s"`
	Requests  int64             `json:"requests"`
	Errors    int64             `json:"errors"`
	Dropped   int64             `json:"dropped"`
	// Drained counts operations that completed after the measured window,
	// in the drain: they belong to no second of the step and are not in
	// ThroughputRPS.
	Drained    int64            `json:"drained"`
	ErrorKinds map[string]int64 `json:"error_kinds"`
	// ErrorSamples are what the errors of each kind said, a few distinct
	// messages per kind (AddErrorSample), redacted; nil when no runner
	// gave one.
	ErrorSamples map[string][]string `json:"error_samples,omitempty"`
	// ThroughputRPS is the operations completed inside the measured window
	// per second of it; OKRPS counts only the successful ones.
	ThroughputRPS float64 `json:"throughput_rps"`
	OKRPS         float64 `json:"ok_rps"`
	// OfferedRPS is the rate an open loop was set to send at, and Late the
	// arrivals it sent after their due time: offered above achieved is
	// overload. Both are zero for closed loops.
	OfferedRPS float64 `json:"offered_rps,omitempty"`
	Late       int64   `json:"late,omitempty"`
	// InFlight is how many operations (or held streams) were in flight
	// at most during the measured window and at its end; nil in
	// artifacts written before it was kept.
	InFlight  *InFlight   `json:"in_flight,omitempty"`
	LatencyMS Percentiles `json:"latency_ms"`
	ServiceMS Percentiles `json:"service_ms"`
	// ExtraMS holds further timings a runner keeps apart, such as "handshake"
	// for fresh QUIC connections or "pool_wait" for Postgres.
	ExtraMS   map[string]Percentiles `json:"extra_ms,omitempty"`
	Histogram string                 `json:"histogram"`
	// Histograms are the step's other timings, encoded as Histogram is
	// (shard.go): a shard writes them so that a merge is exact.
	Histograms map[string]string `json:"histograms,omitempty"`
	// HLog names the step's HdrHistogram interval log, a file beside the
	// artifact ("<artifact base>-step<N>.hlog"); "" when none was written.
	HLog string `json:"hlog,omitempty"`
	// IntervalLog is the interval log's contents, written to HLog by Write
	// and never part of the JSON.
	IntervalLog *IntervalLog `json:"-"`
	// HLogData is, in a shard's artifact only, the interval log itself (its
	// frame in a pod's log travels alone): merge joins the shards' logs
	// into the merged step's .hlog and series.
	HLogData string       `json:"hlog_data,omitempty"`
	Target   *TargetStats `json:"target,omitempty"`
	// Targets are the figures of each of the group's watched targets by
	// name (`target: [api, worker]`), the first (Target) included;
	// TargetsSum adds them up sample by sample (RSS, fds, threads, CPU)
	// when the group watches more than one. Both nil in artifacts written
	// before several targets.
	Targets    map[string]*TargetStats `json:"targets,omitempty"`
	TargetsSum *TargetStats            `json:"targets_sum,omitempty"`
	// Self is benchtui's own resource use, so a generator leak is never
	// mistaken for a target leak.
	Self *TargetStats `json:"self,omitempty"`
	// Samples are the step's figures per independent sample, the ground of
	// every comparison verdict; nil in artifacts written before samples.
	Samples *Samples       `json:"samples,omitempty"`
	Series  []Point        `json:"series"`
	Checks  []Check        `json:"checks"`
	Events  []Event        `json:"events"`
	Extra   map[string]any `json:"extra,omitempty"`
	// Counters are runner-specific counts: disconnects, reconnects, refused
	// after a signal. The counters a runner kind declares are written at 0
	// when nothing was counted.
	Counters map[string]int64 `json:"counters,omitempty"`
	// ByName holds the figures of each named request (the plan's `name:`),
	// whose counts add up to the step's own when every request is named.
	ByName map[string]NamedStep `json:"by_name,omitempty"`
	// Status counts the operations by protocol status code ("200", "429").
	Status map[string]int64 `json:"status,omitempty"`
	// Probes are the figures of the group's probes by name (probes.go).
	Probes map[string]ProbeStats `json:"probes,omitempty"`
	// Windows are the figures of the group's windows by name (a plan's
	// windows:, windows.go): the operations due while an action ran, or
	// in a time after it.
	Windows map[string]WindowStep `json:"windows,omitempty"`
	// Profiles are files saved beside the artifact during the step, by
	// what they hold: heap_start and heap_end are the target's heap
	// profiles (`go tool pprof -diff_base heap_start heap_end`), cpu its
	// CPU profile over the measured window (DiffProfiles).
	Profiles map[string]string `json:"profiles,omitempty"`
}

// NamedStep is the figures of one named request in a step: its counts,
// its latency percentiles (from due time) and the HDR histogram they come
// from, for exact merges.
type NamedStep struct {
	Requests int64 `json:"requests"`
	Errors   int64 `json:"errors"`
	// Dropped counts the open-loop arrivals of one of a group's loads
	// (loads:) that found no free slot; 0 (left out) for named requests.
	Dropped    int64            `json:"dropped,omitempty"`
	ErrorKinds map[string]int64 `json:"error_kinds,omitempty"`
	LatencyMS  Percentiles      `json:"latency_ms"`
	Histogram  string           `json:"histogram"`
	// Samples are the name's figures per block, as the step's; nil for a
	// repeated step (its runs are not kept by name).
	Samples *Samples `json:"samples,omitempty"`
}

// Kinds of Samples.Of.
const (
	SamplesOfRuns   = "runs"
	SamplesOfBlocks = "blocks"
)

// Keys of Samples.Values: the figures sampled, latencies in milliseconds
// and error_rate a fraction.
const (
	SampleRPS       = "rps"
	SampleOKRPS     = "ok_rps"
	SampleErrorRate = "error_rate"
	SampleP50       = "p50"
	SampleP90       = "p90"
	SampleP99       = "p99"
	SampleP999      = "p999"
	SampleMax       = "max"
	SampleMean      = "mean"
)

// Samples are independent samples of a step's figures: one per repetition
// (Of == "runs") or one per non-overlapping block of BlockS seconds of one
// run (Of == "blocks"). Comparisons test these, never the series points,
// which are autocorrelated and grow in number with the run's length.
type Samples struct {
	Of     string               `json:"of"`
	BlockS float64              `json:"block_s,omitempty"`
	Values map[string][]float64 `json:"values"` // metric -> one value per sample
	// Blocks are what each block was made of, kept by a shard of a
	// distributed run only (merge rebuilds the samples from them).
	Blocks *BlockData `json:"blocks,omitempty"`
}

// N is the number of samples of key, 0 when there are none.
func (s *Samples) N(key string) int {
	if s == nil {
		return 0
	}
	return len(s.Values[key])
}

// Percentiles are latency figures in milliseconds. P50 to P999 use
// hdrhistogram-go's rank rule (the rank rounded); P99Ceil and P999Ceil are
// the same histogram's p99 and p99.9 by HdrHistogram Java's and
// JavaScript's rule (the rank rounded up, ValueAtPercentileCeil).
type Percentiles struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
	// Min is the least value recorded (0, left out, when none was, and in
	// artifacts written before it was kept).
	Min float64 `json:"min,omitempty"`
	// P99Ceil and P999Ceil are p99 and p99.9 by Java's rank rule (0, left
	// out, where no histogram was read and in artifacts written before them).
	P99Ceil  float64 `json:"p99_ceil,omitempty"`
	P999Ceil float64 `json:"p999_ceil,omitempty"`
}

// TargetStats summarise a watched process's resource use over a step.
// Slopes are least-squares fits over the samples on the wall clock (a
// pause stops the load, not the target), each with its Newey–West standard
// error and the fit behind it (RSSFit, FDsFit), so that a comparison can
// tell a trend from noise; SpanS is how many seconds the samples cover (0
// in artifacts written before it was kept). RSSRising is the verdict of
// RSSRising on these figures: the RSS slope over the measured samples is
// significantly above zero and above the leak floors.
type TargetStats struct {
	RSSMB             Range     `json:"rss_mb"`
	RSSSlopeMBPerMin  float64   `json:"rss_slope_mb_per_min"`
	RSSSlopeSE        float64   `json:"rss_slope_se_mb_per_min,omitempty"`
	RSSFit            *SlopeFit `json:"rss_slope_fit,omitempty"`
	RSSRising         bool      `json:"rss_rising,omitempty"`
	RSSTailSlopeMBMin float64   `json:"rss_tail_slope_mb_per_min"`
	RSSTailSlopeSE    float64   `json:"rss_tail_slope_se_mb_per_min,omitempty"`
	// TailWindowS is the window of the tail slope in seconds (the soak
	// policy's window, 60 s by default); 0 in older artifacts.
	TailWindowS    float64   `json:"rss_tail_window_s,omitempty"`
	FDs            Range     `json:"fds"`
	FDsSlopePerMin float64   `json:"fds_slope_per_min,omitempty"`
	FDsSlopeSE     float64   `json:"fds_slope_se_per_min,omitempty"`
	FDsFit         *SlopeFit `json:"fds_slope_fit,omitempty"`
	FDsPerUnit     float64   `json:"fds_per_unit"`
	CPUCores       float64   `json:"cpu_cores"`
	CPUCoresSE     float64   `json:"cpu_cores_se,omitempty"`
	// CPUCoresPeak is the most cores used between two samples (0 in
	// artifacts written before it was kept).
	CPUCoresPeak float64 `json:"cpu_cores_peak,omitempty"`
	Threads      Range   `json:"threads"`
	SpanS        float64 `json:"span_s,omitempty"`
	// PSSMB and USSMB are a process tree's memory summed by PSS (shared
	// pages split between the processes that map them) and USS (private
	// pages only), beside RSSMB, which counts shared pages in every
	// process; nil unless the target is sampled as a tree (`tree: true`,
	// the embedded Postgres).
	PSSMB *Range `json:"pss_mb,omitempty"`
	USSMB *Range `json:"uss_mb,omitempty"`
	// The figures of a cgroup target (nil or 0 for a process):
	// WorkingSetMB is the kubelet's working set (usage - inactive_file;
	// RSSMB is then the cgroup's whole usage, page cache included),
	// KernelPeakMB the kernel's own peak since the cgroup was made
	// (memory.peak or memory.max_usage_in_bytes, 0 when the kernel has
	// none), and ThrottledPeriods, ThrottledS and OOMKills what the step
	// added to the cgroup's counters (nr_throttled, throttled time,
	// oom_kill).
	WorkingSetMB     *Range  `json:"working_set_mb,omitempty"`
	KernelPeakMB     float64 `json:"kernel_peak_mb,omitempty"`
	ThrottledPeriods int64   `json:"throttled_periods,omitempty"`
	ThrottledS       float64 `json:"throttled_s,omitempty"`
	OOMKills         int64   `json:"oom_kills,omitempty"`
}

// InFlight is a step's operations in flight: the most at any moment of
// the measured window (Max) and how many were still in flight when it
// ended (End), before the drain. In a merge of shards both are the sum of
// the shards' figures, so Max is an upper bound there.
type InFlight struct {
	Max int64 `json:"max"`
	End int64 `json:"end"`
}

// Range is the start, peak and end of a sampled figure.
type Range struct {
	Start float64 `json:"start"`
	Peak  float64 `json:"peak"`
	End   float64 `json:"end"`
}

// Point is one interval of a step's time series. T is the end of the
// interval in seconds of active (unpaused) time since the step's clock started.
type Point struct {
	T        float64 `json:"t"`
	DT       float64 `json:"dt,omitempty"`
	RPS      float64 `json:"rps"`
	P50MS    float64 `json:"p50_ms"`
	P99MS    float64 `json:"p99_ms"`
	Errors   int64   `json:"errors"`
	InFlight int     `json:"in_flight"`
	RSSMB    float64 `json:"rss_mb"`
	FDs      float64 `json:"fds"`
	SelfMB   float64 `json:"self_rss_mb,omitempty"`
}

// Check is a pass/fail judgement of a step: a threshold or a verify query.
type Check struct {
	Name  string  `json:"name"`
	OK    bool    `json:"ok"`
	Value float64 `json:"value"`
	Note  string  `json:"note,omitempty"`
	// TimeToPassS is, for a check that waits (a verify entry's `until:`),
	// the seconds from its first poll to the end of the poll that held;
	// 0 (left out) when it never held, and for checks that do not wait.
	TimeToPassS float64 `json:"time_to_pass_s,omitempty"`
	// Limits are, for a threshold check whose limit is another figure, the
	// limit that figure set (two for between); Unit is "ms" when they and
	// Value are milliseconds. Both are left out for other checks.
	Limits []float64 `json:"limits,omitempty"`
	Unit   string    `json:"unit,omitempty"`
}

// Event kinds, as docs/artifact.md lists them.
const (
	EventExtended        = "extended"
	EventPaused          = "paused"
	EventResumed         = "resumed"
	EventTargetExited    = "target_exited"
	EventThresholdFailed = "threshold_failed"
	EventNote            = "note"
	EventStopped         = "stopped"
	// EventAction is a plan action done during the step (Event.Action).
	EventAction = "action"
	// EventTargetRestarted is a target started again by a restart action.
	EventTargetRestarted = "target_restarted"
)

// Event is something that happened during a step, at T seconds of active time.
type Event struct {
	T    float64 `json:"t"`
	Kind string  `json:"kind"`
	Note string  `json:"note"`
	// Action is the result of a plan action (kinds action and
	// target_restarted); nil for other events.
	Action *ActionResult `json:"action,omitempty"`
}

// Failed reports whether any check of any step failed.
func (a *Artifact) Failed() bool {
	for _, s := range a.Steps {
		for _, c := range s.Checks {
			if !c.OK {
				return true
			}
		}
	}
	return false
}
