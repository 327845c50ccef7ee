package main

import (
	"encoding/json"
	"io"
	"math"
	"strings"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/plan"
)

// liveLine is one line a shard prints on stderr about once a second: its
// step so far, with the latency histogram so far (encoded), so that a
// watcher merges the shards' lines into exact figures of the whole.
type liveLine struct {
	Version  int       `json:"benchtui_live"`
	RunID    string    `json:"run_id"`
	Shard    int       `json:"shard"`
	Count    int       `json:"count"`
	Group    string    `json:"group"`
	Step     int       `json:"step"`
	Steps    int       `json:"steps"`
	Label    string    `json:"label"`
	Phase    string    `json:"phase"`
	At       time.Time `json:"at"`
	Elapsed  float64   `json:"elapsed_s"`
	Requests int64     `json:"requests"`
	Errors   int64     `json:"errors"`
	Dropped  int64     `json:"dropped"`
	InFlight int       `json:"in_flight"`
	Hist     string    `json:"hist,omitempty"`
	SelfCPU  float64   `json:"self_cpu_cores"`
	SelfRSS  float64   `json:"self_rss_mb"`

	// recent is what the shard recorded since its previous line of the
	// step (the watcher's, never printed): the live view's "now".
	recent recentInterval
}

// recentInterval is a shard's step between two of its lines: the latency
// histogram of those operations (encoded), how many, over how long.
type recentInterval struct {
	hist     string
	requests int64
	seconds  float64
}

// since is l's recentInterval after prev, the shard's previous line of
// the step: their running histograms' delta. The zero recentInterval when
// there is none (a first line, or lines out of order).
func (l liveLine) since(prev liveLine) recentInterval {
	dt := l.Elapsed - prev.Elapsed
	if dt <= 0 || l.Hist == "" || prev.Hist == "" || l.Requests < prev.Requests {
		return recentInterval{}
	}
	now, err1 := artifacts.DecodeHistogram(l.Hist)
	before, err2 := artifacts.DecodeHistogram(prev.Hist)
	if err1 != nil || err2 != nil {
		return recentInterval{}
	}
	d, ok := artifacts.HistogramDelta(now, before)
	if !ok {
		return recentInterval{}
	}
	enc, err := artifacts.EncodeHistogram(d)
	if err != nil {
		return recentInterval{}
	}
	return recentInterval{hist: enc, requests: l.Requests - prev.Requests, seconds: dt}
}

// liveMarker starts every live line (after any prefix a log adds).
const liveMarker = `{"benchtui_live":`

// liveWriter prints a shard's live lines: at most one a second, and each
// step's last.
type liveWriter struct {
	w    io.Writer
	sh   runners.Shard
	last time.Time
}

func (l *liveWriter) show(s engine.Snapshot) {
	if l == nil || (time.Since(l.last) < time.Second && s.Phase != engine.PhaseDone) {
		return
	}
	l.last = time.Now()
	line := liveLine{Version: 1, RunID: l.sh.RunID, Shard: l.sh.Index, Count: l.sh.Count,
		Group: s.GroupID, Step: s.Step, Steps: s.Steps, Label: s.StepLabel, Phase: string(s.Phase),
		At: l.last.UTC(), Elapsed: s.Elapsed.Seconds(), Requests: s.Total.Requests, Errors: s.Total.Errors,
		Dropped: s.Total.Dropped, InFlight: s.InFlight, Hist: s.TotalHist}
	if s.Self != nil {
		line.SelfCPU, line.SelfRSS = s.Self.CPUCores, s.Self.RSSMB
	}
	b, err := json.Marshal(line)
	if err == nil {
		l.w.Write(append(b, '\n'))
	}
}

// parseLiveLine reads a live line from a log line, behind any prefix;
// false for any other line, and for one whose figures no shard prints
// (figuresOK). Its texts have their control characters escaped: a
// log's line must not move the cursor or retitle the terminal.
func parseLiveLine(s string) (liveLine, bool) {
	i := strings.Index(s, liveMarker)
	if i < 0 {
		return liveLine{}, false
	}
	var l liveLine
	if err := json.Unmarshal([]byte(s[i:]), &l); err != nil || l.Version != 1 || !l.figuresOK() {
		return liveLine{}, false
	}
	l.RunID, l.Group, l.Label, l.Phase = plan.Printable(l.RunID), plan.Printable(l.Group), plan.Printable(l.Label), plan.Printable(l.Phase)
	return l, true
}

// maxLiveCount bounds a live line's counts: the lines of artifacts.MaxShards
// shards add up within an int64, and a shard doing ten million operations
// a second would take three years to reach it.
const maxLiveCount = math.MaxInt64 / artifacts.MaxShards

// figuresOK reports whether l's figures are some a shard prints: counts
// (in-flight operations too) from 0 to maxLiveCount, errors among the
// requests, times and the shard's own figures finite and not negative.
func (l liveLine) figuresOK() bool {
	for _, n := range []int64{l.Requests, l.Errors, l.Dropped, int64(l.InFlight)} {
		if n < 0 || n > maxLiveCount {
			return false
		}
	}
	for _, f := range []float64{l.Elapsed, l.SelfCPU, l.SelfRSS} {
		if math.IsNaN(f) || f < 0 || f > math.MaxFloat64 {
			return false
		}
	}
	return l.Errors <= l.Requests && l.Elapsed <= artifacts.MaxStepSeconds
}
