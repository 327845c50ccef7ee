// Package livemerge carries the live figures of a distributed run: each
// shard prints a Line about once a second (Writer), holding its step so
// far with the step's latency histogram; a watcher (benchtui watch, the
// console on a distributed run) reads the shards' logs, keeps their lines
// (Run) and merges them into exact figures of the whole run, as the
// snapshots the console draws and a status line a second.
package livemerge

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

// Line is one line a shard prints on stderr about once a second: its
// step so far, with the latency histogram so far (encoded), so that a
// watcher merges the shards' lines into exact figures of the whole.
type Line struct {
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
	recent interval
}

// interval is a shard's step between two of its lines: the latency
// histogram of those operations (encoded), how many, over how long.
type interval struct {
	hist     string
	requests int64
	seconds  float64
}

// since is l's interval after prev, the shard's previous line of
// the step: their running histograms' delta. The zero interval when
// there is none (a first line, or lines out of order).
func (l Line) since(prev Line) interval {
	dt := l.Elapsed - prev.Elapsed
	if dt <= 0 || l.Hist == "" || prev.Hist == "" || l.Requests < prev.Requests {
		return interval{}
	}
	now, err1 := artifacts.DecodeHistogram(l.Hist)
	before, err2 := artifacts.DecodeHistogram(prev.Hist)
	if err1 != nil || err2 != nil {
		return interval{}
	}
	d, ok := artifacts.HistogramDelta(now, before)
	if !ok {
		return interval{}
	}
	enc, err := artifacts.EncodeHistogram(d)
	if err != nil {
		return interval{}
	}
	return interval{hist: enc, requests: l.Requests - prev.Requests, seconds: dt}
}

// marker starts every live line (after any prefix a log adds).
const marker = `{"benchtui_live":`

// Writer prints a shard's live lines: at most one a second, and each
// step's last. A nil Writer prints nothing.
type Writer struct {
	w    io.Writer
	sh   runners.Shard
	last time.Time
}

// NewWriter returns the Writer of shard sh's live lines, printed to w.
func NewWriter(w io.Writer, sh runners.Shard) *Writer { return &Writer{w: w, sh: sh} }

// Show prints s as a live line, unless one was printed less than a second
// ago and s is no step's end.
func (l *Writer) Show(s engine.Snapshot) {
	if l == nil || (time.Since(l.last) < time.Second && s.Phase != engine.PhaseDone) {
		return
	}
	l.last = time.Now()
	line := Line{Version: 1, RunID: l.sh.RunID, Shard: l.sh.Index, Count: l.sh.Count,
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

// ParseLine reads a live line from a log line, behind any prefix;
// false for any other line, and for one whose figures no shard prints
// (figuresOK). Its texts have their control characters escaped: a
// log's line must not move the cursor or retitle the terminal.
func ParseLine(s string) (Line, bool) {
	i := strings.Index(s, marker)
	if i < 0 {
		return Line{}, false
	}
	var l Line
	if err := json.Unmarshal([]byte(s[i:]), &l); err != nil || l.Version != 1 || !l.figuresOK() {
		return Line{}, false
	}
	l.RunID, l.Group, l.Label, l.Phase = plan.Printable(l.RunID), plan.Printable(l.Group), plan.Printable(l.Label), plan.Printable(l.Phase)
	return l, true
}

// maxCount bounds a live line's counts: the lines of artifacts.MaxShards
// shards add up within an int64, and a shard doing ten million operations
// a second would take three years to reach it.
const maxCount = math.MaxInt64 / artifacts.MaxShards

// figuresOK reports whether l's figures are some a shard prints: counts
// (in-flight operations too) from 0 to maxCount, errors among the
// requests, times and the shard's own figures finite and not negative.
func (l Line) figuresOK() bool {
	for _, n := range []int64{l.Requests, l.Errors, l.Dropped, int64(l.InFlight)} {
		if n < 0 || n > maxCount {
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
