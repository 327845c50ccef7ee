package artifacts

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// ShardInfo is the artifact's `shard` block: which part of a distributed
// run it holds (`run --shard I/N`), or, once merged (`benchtui merge`),
// which shards went in. Artifacts of one machine have none.
type ShardInfo struct {
	Index       int       `json:"index"`
	Count       int       `json:"count"`
	RunID       string    `json:"run_id"`
	StartAt     time.Time `json:"start_at"`
	PlanSHA256  string    `json:"plan_sha256"`
	ToolVersion string    `json:"tool_version"`
	// Merged is set on a merge's result; Shards lists its inputs.
	Merged bool        `json:"merged,omitempty"`
	Shards []ShardPart `json:"shards,omitempty"`
}

// ShardPart is one input of a merge: where it came from and the
// generator's own figures on that machine, per step (benchtui's CPU and
// RSS, the figures that say whether a generator saturated).
type ShardPart struct {
	Index   int            `json:"index"`
	File    string         `json:"file"`
	Host    Host           `json:"host"`
	Partial bool           `json:"partial,omitempty"`
	Self    []*TargetStats `json:"self"`
	// Saturated lists the steps (labels) in which this shard's benchtui
	// used SaturatedShare or more of its machine's CPUs: its latencies
	// may include its own queueing, and more shards would load better.
	Saturated []string `json:"saturated,omitempty"`
}

// SaturatedShare is the share of a machine's CPUs past which a shard's
// generator is flagged saturated.
const SaturatedShare = 0.9

// Histogram keys of steps[].histograms besides the latency one
// (steps[].histogram): service time, and each extra timing as
// HistExtraPrefix + its name.
const (
	HistService     = "service"
	HistExtraPrefix = "extra."
)

// TimingHistograms encodes the service-time and extra-timing histograms
// of a step (steps[].histograms), so that shards merge exactly; an
// encoding failure leaves that timing out.
func TimingHistograms(service *hdrhistogram.Histogram, extra map[string]*hdrhistogram.Histogram) map[string]string {
	out := map[string]string{}
	if s, err := EncodeHistogram(service); err == nil {
		out[HistService] = s
	}
	for name, h := range extra {
		if s, err := EncodeHistogram(h); err == nil {
			out[HistExtraPrefix+name] = s
		}
	}
	return out
}
