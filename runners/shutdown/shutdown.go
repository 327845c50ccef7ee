// Package shutdown is the `shutdown` runner: a signal sent to the watched
// target while load runs (seed group G14).
//
// A shutdown step runs the group's HTTP load (httpload's workers, driven
// by the closed loop of runners/loop) against the watched target, sends a frozen
// batch of slow requests just before `after`, signals the target, and
// sorts every request by when it ran against the signal: in flight at it
// (then completed or dropped), refused after it (counted apart, never as
// dropped work), or ordinary load. With an `sse:` section, subscribers
// are held through the signal and their streams counted as closed cleanly
// or cut. It waits for the exit up to `grace` (then kills the target) and
// reports the time to exit, the exit status and the check
// dropped_in_flight == 0. The runner is a Driver: the target's exit ends
// the step.
package shutdown

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"syscall"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/httpload"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/spawn"
	"github.com/benchtui/benchtui/runners/sse"
)

// Spec is the `shutdown:` section of a group. The load is the
// group's `http:` section, driven by `load: {concurrency: N}` workers.
type Spec struct {
	// Signal is sent to the target (default SIGTERM).
	Signal string `yaml:"signal"`
	// After is when the signal goes, counted from the start of the load
	// (a group warmup included; default 10s).
	After plan.Duration `yaml:"after"`
	// Freeze requests to FreezeURL (a slow endpoint, well over 300 ms) are
	// sent FreezeLead before the signal, so that many are surely in flight
	// when it arrives.
	Freeze    int    `yaml:"freeze"`
	FreezeURL string `yaml:"freeze_url"`
	// FreezeLead is how long before the signal the frozen batch is sent
	// (default 200ms; at most After): longer for a server slow to accept
	// connections, or to show that an endpoint meant to be slow is not
	// (its replies then come back before the signal).
	FreezeLead plan.Duration `yaml:"freeze_lead"`
	// Grace bounds the wait for the target's exit (default 30s); a target
	// still running then is killed.
	Grace plan.Duration `yaml:"grace"`
}

// Defaults of the shutdown section.
const (
	DefaultAfter      = 10 * time.Second
	DefaultGrace      = 30 * time.Second
	DefaultFreezeLead = 200 * time.Millisecond
)

// Timing of the frozen batch: it is sent FreezeLead before the signal, and
// the signal waits until every frozen request is written plus freezeSettle
// (for the server to accept the connection), but no more than freezeWait.
const (
	freezeSettle = 100 * time.Millisecond
	freezeWait   = 2 * time.Second
)

// Section is the plan key of the shutdown section.
const Section = "shutdown"

// Kind is `runner: shutdown`. It reads the group's `http:` and `sse:`
// sections too, for the load it holds through the signal.
func Kind() runners.Kind {
	return runners.Kind{
		Name: plan.ShutdownRunner,
		Sections: map[string]func() any{
			Section: func() any { return &Spec{} }, httpload.Section: httpload.NewSpec, sse.Section: sse.NewSpec,
		},
		Validate: validateShutdown, New: New, TargetExits: true, Counters: counterNames,
	}
}

// counterNames are the counters of a shutdown group's steps: its own, and
// the streams' when it holds event streams through the signal.
func counterNames(g *plan.Group) []string {
	names := []string{CounterInFlight, CounterCompleted, CounterDropped, CounterRefused,
		CounterFailedAfter, CounterFrozen, CounterFrozenInFlight}
	if _, streams := g.Sections[sse.Section]; streams {
		names = append(names, sse.Counters()...)
	}
	return names
}

func validateShutdown(g *plan.Group) []error {
	key := "group " + g.ID + ": "
	spec := plan.Section[Spec](g, Section)
	if spec == nil {
		return []error{plan.Errorf(g.Pos, key+"shutdown", "missing (required for runner shutdown)")}
	}
	errs := append(spec.Validate(g.SectionPos[Section], key+"shutdown"), append(g.NoCounts(), g.NoData()...)...)
	at := func(k, format string, args ...any) {
		errs = append(errs, plan.Errorf(g.Pos, key+k, format, args...))
	}
	if g.Target == "" {
		at("target", "runner shutdown signals the group's target: name one")
	}
	subs := plan.Section[sse.Spec](g, sse.Section)
	switch h := plan.Section[httpload.Spec](g, httpload.Section); {
	case h != nil && len(h.Flow) > 0:
		at("http.flow", "runner shutdown sends a mix of requests (http.requests), not a flow")
	case h != nil && h.JudgesReplies():
		at("http.requests", "runner shutdown judges replies by their status: no assert or tally")
	case h != nil:
		errs = append(errs, h.Validate(g.SectionPos["http"], key+"http")...)
		errs = append(errs, h.TemplateProblems(g, g.SectionPos["http"], key+"http")...)
	case subs == nil:
		at("http", "missing (runner shutdown sends its load with an http section, SSE subscribers with an sse one, or both)")
	case g.Load.Concurrency > 0:
		at("load.concurrency", "HTTP workers need an http section")
	}
	if g.Load.OpenLoop() {
		at("load", "runner shutdown drives a closed loop: give concurrency, not rate")
	}
	if g.Load.Concurrency == 0 && spec.Freeze == 0 && subs == nil {
		at("load.concurrency", "give the load's concurrency, a frozen batch (shutdown.freeze) or SSE subscribers (sse)")
	}
	if len(g.Sweep) > 0 {
		at("sweep", "a shutdown group has one step: its target exits in it")
	}
	if g.Repeat > 1 {
		at("repeat", "a shutdown group runs once: its target exits in it")
	}
	return errs
}

// Validate reports every problem of the section at once.
func (s *Spec) Validate(pos plan.Pos, key string) []error {
	var errs []error
	at := func(k, format string, args ...any) {
		errs = append(errs, plan.Errorf(pos, key+"."+k, format, args...))
	}
	if s.Signal != "" {
		if _, err := spawn.ParseSignal(s.Signal); err != nil {
			at("signal", "%v", err)
		}
	}
	if s.Freeze < 0 {
		at("freeze", "must not be negative")
	}
	if s.Freeze > 0 && s.FreezeURL == "" {
		at("freeze_url", "a frozen batch needs a slow endpoint to hold")
	}
	if s.FreezeLead.D() < 0 {
		at("freeze_lead", "must not be negative")
	}
	if after := s.withDefaults().After.D(); s.FreezeLead.D() > after {
		at("freeze_lead", "%s is longer than after (%s): the batch cannot be sent before the load starts", s.FreezeLead.D(), after)
	}
	if s.FreezeURL != "" {
		if u, err := url.Parse(s.FreezeURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			at("freeze_url", "want an http:// or https:// URL, got %q", plan.RedactURLs(s.FreezeURL))
		}
	}
	return errs
}

func (s Spec) withDefaults() Spec {
	if s.Signal == "" {
		s.Signal = "SIGTERM"
	}
	if s.After.D() <= 0 {
		s.After = plan.Duration{Duration: DefaultAfter}
	}
	if s.Grace.D() <= 0 {
		s.Grace = plan.Duration{Duration: DefaultGrace}
	}
	if s.FreezeLead.D() <= 0 {
		s.FreezeLead = plan.Duration{Duration: DefaultFreezeLead}
	}
	return s
}

// Runner runs HTTP load against the watched target, signals it,
// and measures how the requests in flight fare and how long it takes to
// exit. It is a runners.Driver.
type Runner struct {
	spec   Spec
	sig    syscall.Signal
	load   *httpload.Runner
	freeze *httpload.Runner // nil without a frozen batch
	// sse holds subscribers during the step, nil without an sse section;
	// its counters say how many streams the target closed cleanly and how
	// many it cut.
	sse *sse.Runner
	out Result // the last Drive's, read by Finish
}

var (
	_ runners.Runner = (*Runner)(nil)
	_ runners.Driver = (*Runner)(nil)
)

// NewShutdown builds the shutdown runner of a group.
func New(g *plan.Group, _ *runners.RunEnv) (runners.Runner, error) {
	spec := plan.Section[Spec](g, Section)
	h := plan.Section[httpload.Spec](g, httpload.Section)
	subs := plan.Section[sse.Spec](g, sse.Section)
	if spec == nil || (h == nil && subs == nil) {
		return nil, fmt.Errorf("group %s: runner shutdown needs a shutdown section and an http or sse one", g.ID)
	}
	if h == nil {
		h = &httpload.Spec{} // no HTTP workers; the frozen batch takes its defaults
	}
	r, err := NewRunner(spec, h)
	if err != nil || subs == nil {
		return r, err
	}
	if r.sse, err = sse.New(*subs); err != nil {
		return nil, fmt.Errorf("group %s: %w", g.ID, err)
	}
	return r, nil
}

// NewRunner builds a shutdown runner from its sections.
func NewRunner(spec *Spec, load *httpload.Spec) (*Runner, error) {
	s := spec.withDefaults()
	sig, err := spawn.ParseSignal(s.Signal)
	if err != nil {
		return nil, fmt.Errorf("shutdown: %w", err)
	}
	r := &Runner{spec: s, sig: sig, load: httpload.NewRunner(load)}
	if s.Freeze > 0 {
		// The frozen batch shares the load's transport settings but goes
		// through net/http, whose trace says when each request is written;
		// its timeout outlasts the grace, so only the target can cut it.
		fs := *load
		fs.Requests = []httpload.Request{{Name: "freeze", URL: s.FreezeURL}}
		fs.Client = "net/http"
		fs.Timeout = plan.Duration{Duration: s.After.D() + s.Grace.D() + 10*time.Second}
		r.freeze = httpload.NewRunner(&fs)
	}
	return r, nil
}

// Prepare readies the HTTP clients.
func (r *Runner) Prepare(ctx context.Context, env *runners.StepEnv) error {
	if err := r.load.Prepare(ctx, env); err != nil {
		return fmt.Errorf("shutdown: preparing the load: %w", err)
	}
	if r.freeze != nil {
		if err := r.freeze.Prepare(ctx, env); err != nil {
			return fmt.Errorf("shutdown: preparing the frozen batch: %w", err)
		}
	}
	r.out = Result{}
	return nil
}

// NewWorker is not used: the runner drives its own load.
func (r *Runner) NewWorker(int, *runners.Recorder) (runners.Worker, error) {
	return nil, errors.New("shutdown: the runner drives its own load (runners.Driver)")
}

// Outcome is what the last Drive measured.
func (r *Runner) Outcome() Result { return r.out }

// Finish puts the outcome into the step: counters, extra figures and the
// checks `dropped_in_flight == 0` and `exited within grace`.
func (r *Runner) Finish(context.Context, *runners.StepEnv, runners.Summary) (runners.Findings, error) {
	o := r.out
	f := runners.Findings{
		Counters: o.counters(),
		Extra:    map[string]any{"signal": r.spec.Signal, "after_s": r.spec.After.D().Seconds()},
	}
	if !o.Signaled {
		f.Checks = []runners.Check{{Name: "signal sent", OK: false, Note: "the step ended before the signal"}}
		return f, nil
	}
	f.Extra["time_to_exit_ms"] = round3(float64(o.TimeToExit) / float64(time.Millisecond))
	f.Extra["exit_status"] = o.ExitStatus
	f.Extra["exited_within_grace"] = o.ExitedInGrace
	f.Checks = []runners.Check{
		{Name: "dropped_in_flight == 0", OK: o.DroppedInFlight == 0, Value: float64(o.DroppedInFlight)},
		{Name: "exited within grace", OK: o.ExitedInGrace, Value: round3(o.TimeToExit.Seconds())},
	}
	return f, nil
}

func round3(f float64) float64 { return float64(int64(f*1e3+0.5)) / 1e3 }

// Close drops the clients' idle connections.
func (r *Runner) Close() error {
	err := r.load.Close()
	if r.freeze != nil {
		err = errors.Join(err, r.freeze.Close())
	}
	if r.sse != nil {
		err = errors.Join(err, r.sse.Close())
	}
	return err
}
