package spawn

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/reap"
	"github.com/benchtui/benchtui/runners/watch"
)

// Runner starts the group's command again and again and times each start
// to ready. It is a runners.Driver.
type Runner struct {
	spec   Spec
	ready  plan.Ready
	client *http.Client // for ready: http(s)://…
	self   *watch.Sampler

	// Set in Prepare, for every cycle of the step.
	path    string
	env     []string
	devNull *os.File
	stats   *cycleStats
}

var (
	_ runners.Runner = (*Runner)(nil)
	_ runners.Driver = (*Runner)(nil)
)

// NewRunner builds a spawn runner for spec.
func NewRunner(spec *Spec) (*Runner, error) {
	s := spec.withDefaults()
	if len(s.Command) == 0 {
		return nil, errors.New("spawn: no command")
	}
	ready, err := parseReady(s.Ready)
	if err != nil {
		return nil, fmt.Errorf("spawn: %w", err)
	}
	// The probe transport of a watched target: no keep-alive (each probe
	// connects afresh, as a client's first request would) and self-signed
	// certificates accepted.
	return &Runner{
		spec: s, ready: ready, self: watch.SelfSampler(),
		client: &http.Client{Transport: watch.NewProbeTransport(), Timeout: time.Second},
	}, nil
}

// Prepare resolves the command and builds its environment once, so a
// cycle's time holds no PATH lookup, and starts the step's statistics.
func (r *Runner) Prepare(context.Context, *runners.StepEnv) error {
	if errNoGroups != nil {
		return fmt.Errorf("spawn: %w", errNoGroups)
	}
	path := r.spec.Command[0]
	if !strings.Contains(path, "/") {
		p, err := exec.LookPath(path)
		if err != nil {
			return fmt.Errorf("spawn: finding %s: %w", path, err)
		}
		path = p
	}
	r.path = path
	r.env = reap.Env(mergeEnv(os.Environ(), r.spec.Env))
	reap.Prepare() // before the first cycle starts
	if r.devNull == nil {
		f, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
		if err != nil {
			return fmt.Errorf("spawn: opening %s: %w", os.DevNull, err)
		}
		r.devNull = f
	}
	r.stats = newCycleStats()
	return nil
}

// mergeEnv appends env to base; exec lets later entries win.
func mergeEnv(base []string, env map[string]string) []string {
	out := slices.Clip(base)
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// NewWorker is not used: the runner drives its own cycles.
func (r *Runner) NewWorker(int, *runners.Recorder) (runners.Worker, error) {
	return nil, errors.New("spawn: the runner drives its own cycles (runners.Driver)")
}

// Drive runs the warmup and measured cycles on `concurrency` workers,
// each waiting at the step's gate before a cycle, and returns when all are
// done or ctx ends (a cycle in flight is then killed and not recorded).
func (r *Runner) Drive(ctx context.Context, env *runners.StepEnv) error {
	if r.stats == nil {
		return errors.New("spawn: Drive before Prepare")
	}
	total := int64(r.spec.Warmup + r.spec.Cycles)
	var next atomic.Int64
	var wg sync.WaitGroup
	for i := range r.concurrency(env) {
		rec := env.Recorder(i)
		wg.Go(func() {
			for {
				if _, err := env.Gate().Wait(ctx); err != nil || ctx.Err() != nil {
					return
				}
				n := next.Add(1)
				if n > total || !r.runOne(ctx, env, rec, n <= int64(r.spec.Warmup)) {
					return
				}
			}
		})
	}
	wg.Wait()
	return nil
}

// concurrency is the step's load concurrency (a sweep value), else the
// section's, else 1.
func (r *Runner) concurrency(env *runners.StepEnv) int {
	switch {
	case env.Load.Concurrency > 0:
		return env.Load.Concurrency
	case r.spec.Concurrency > 0:
		return r.spec.Concurrency
	}
	return 1
}

// runOne runs a cycle and records it unless it is a warmup cycle; it
// returns false when the step ended mid-cycle.
func (r *Runner) runOne(ctx context.Context, env *runners.StepEnv, rec *runners.Recorder, warmup bool) bool {
	env.AddInFlight(1)
	res := r.cycle(ctx)
	env.AddInFlight(-1)
	if res.kind == kindCancelled {
		return false
	}
	if warmup {
		return true
	}
	rec.Done(res.start, res.start, res.end, res.kind)
	if res.stop > 0 {
		rec.Extra("stop", res.stop)
	}
	if res.killed {
		rec.Count(CounterStopKilled, 1)
	}
	rss := -1.0
	if s, err := r.self.Sample(); err == nil {
		rss = s.RSSMB()
	}
	ms := float64(res.end.Sub(res.start)) / float64(time.Millisecond)
	r.stats.add(res.kind, ms, res.killed, rss)
	return true
}

// Summary returns what the current step measured so far.
func (r *Runner) Summary() Summary {
	if r.stats == nil {
		return Summary{Failed: map[string]int64{}}
	}
	return r.stats.summary()
}

// Finish puts the warm-up trend and benchtui's RSS growth per cycle into
// the step's extra figures.
func (r *Runner) Finish(context.Context, *runners.StepEnv, runners.Summary) (runners.Findings, error) {
	s := r.Summary()
	return runners.Findings{Extra: map[string]any{
		"ready":                 r.readyName(),
		"cycles":                s.Cycles + sumValues(s.Failed),
		"warmup_cycles":         r.spec.Warmup,
		"first10_p50_ms":        round3(s.First10P50MS),
		"last10_p50_ms":         round3(s.Last10P50MS),
		"self_rss_mb_per_cycle": round6(s.SelfRSSMBPerCycle),
		"self_rss_mb_first":     round3(s.SelfRSSMBFirst),
		"self_rss_mb_last":      round3(s.SelfRSSMBLast),
	}}, nil
}

func (r *Runner) readyName() string {
	if r.spec.Ready == "" {
		return "exit"
	}
	return r.spec.Ready
}

// Close releases /dev/null and the probe client's connections.
func (r *Runner) Close() error {
	r.client.CloseIdleConnections()
	if r.devNull != nil {
		err := r.devNull.Close()
		r.devNull = nil
		if err != nil {
			return fmt.Errorf("spawn: closing %s: %w", os.DevNull, err)
		}
	}
	return nil
}

func round3(f float64) float64 { return float64(int64(f*1e3+0.5)) / 1e3 }

func round6(f float64) float64 {
	if f < 0 {
		return -round6(-f)
	}
	return float64(int64(f*1e6+0.5)) / 1e6
}
