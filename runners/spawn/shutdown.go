package spawn

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"syscall"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/httpload"
	"github.com/benchtui/benchtui/runners/sse"
)

// ShutdownSpec is the `shutdown:` section of a group. The load is the
// group's `http:` section, driven by `load: {concurrency: N}` workers.
type ShutdownSpec struct {
	// Signal is sent to the target (default SIGTERM).
	Signal string `yaml:"signal"`
	// After is when the signal goes, counted from the start of the load
	// (a group warmup included; default 10s).
	After runners.Duration `yaml:"after"`
	// Freeze requests to FreezeURL (a slow endpoint, well over 300 ms) are
	// sent 200 ms before the signal, so that many are surely in flight
	// when it arrives.
	Freeze    int    `yaml:"freeze"`
	FreezeURL string `yaml:"freeze_url"`
	// Grace bounds the wait for the target's exit (default 30s); a target
	// still running then is killed.
	Grace runners.Duration `yaml:"grace"`
}

// Defaults of the shutdown section.
const (
	DefaultAfter = 10 * time.Second
	DefaultGrace = 30 * time.Second
)

// Timing of the frozen batch: it is sent freezeLead before the signal, and
// the signal waits until every frozen request is written plus freezeSettle
// (for the server to accept the connection), but no more than freezeWait.
const (
	freezeLead   = 200 * time.Millisecond
	freezeSettle = 100 * time.Millisecond
	freezeWait   = 2 * time.Second
)

func validateShutdown(g *runners.Group) []error {
	key := "group " + g.ID + ": "
	spec, _ := g.Section("shutdown").(*ShutdownSpec)
	if spec == nil {
		return []error{runners.Errorf(g.Pos, key+"shutdown", "missing (required for runner shutdown)")}
	}
	errs := spec.Validate(g.SectionPos["shutdown"], key+"shutdown")
	at := func(k, format string, args ...any) {
		errs = append(errs, runners.Errorf(g.Pos, key+k, format, args...))
	}
	if g.Target == "" {
		at("target", "runner shutdown signals the group's target: name one")
	}
	subs, _ := g.Section("sse").(*sse.Spec)
	switch h, _ := g.Section("http").(*httpload.Spec); {
	case h != nil:
		errs = append(errs, h.Validate(g.SectionPos["http"], key+"http")...)
	case subs == nil:
		at("http", "missing (runner shutdown sends its load with an http section, SSE subscribers with an sse one, or both)")
	case g.Load.Concurrency > 0:
		at("load.concurrency", "HTTP workers need an http section")
	}
	if g.Load.Rate > 0 {
		at("load", "runner shutdown drives a closed loop: give concurrency, not rate")
	}
	if g.Load.Concurrency == 0 && spec.Freeze == 0 && subs == nil {
		at("load.concurrency", "give the load's concurrency, a frozen batch (shutdown.freeze) or SSE subscribers (sse)")
	}
	if len(g.Sweep) > 0 {
		at("sweep", "a shutdown group has one step: its target exits in it")
	}
	return errs
}

// Validate reports every problem of the section at once.
func (s *ShutdownSpec) Validate(pos runners.Pos, key string) []error {
	var errs []error
	at := func(k, format string, args ...any) {
		errs = append(errs, runners.Errorf(pos, key+"."+k, format, args...))
	}
	if s.Signal != "" {
		if _, err := ParseSignal(s.Signal); err != nil {
			at("signal", "%v", err)
		}
	}
	if s.Freeze < 0 {
		at("freeze", "must not be negative")
	}
	if s.Freeze > 0 && s.FreezeURL == "" {
		at("freeze_url", "a frozen batch needs a slow endpoint to hold")
	}
	if s.FreezeURL != "" {
		if u, err := url.Parse(s.FreezeURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			at("freeze_url", "want an http:// or https:// URL, got %q", runners.RedactURLs(s.FreezeURL))
		}
	}
	return errs
}

func (s ShutdownSpec) withDefaults() ShutdownSpec {
	if s.Signal == "" {
		s.Signal = "SIGTERM"
	}
	if s.After.D() <= 0 {
		s.After = runners.Duration{Duration: DefaultAfter}
	}
	if s.Grace.D() <= 0 {
		s.Grace = runners.Duration{Duration: DefaultGrace}
	}
	return s
}

// ShutdownRunner runs HTTP load against the watched target, signals it,
// and measures how the requests in flight fare and how long it takes to
// exit. It is a runners.Driver.
type ShutdownRunner struct {
	spec   ShutdownSpec
	sig    syscall.Signal
	load   *httpload.Runner
	freeze *httpload.Runner // nil without a frozen batch
	// sse holds subscribers during the step, nil without an sse section;
	// its counters say how many streams the target closed cleanly and how
	// many it cut.
	sse *sse.Runner
	out ShutdownOutcome // the last Drive's, read by Finish
}

var (
	_ runners.Runner = (*ShutdownRunner)(nil)
	_ runners.Driver = (*ShutdownRunner)(nil)
)

// NewShutdown builds the shutdown runner of a group.
func NewShutdown(g *runners.Group, _ *runners.RunEnv) (runners.Runner, error) {
	spec, _ := g.Section("shutdown").(*ShutdownSpec)
	h, _ := g.Section("http").(*httpload.Spec)
	subs, _ := g.Section("sse").(*sse.Spec)
	if spec == nil || (h == nil && subs == nil) {
		return nil, fmt.Errorf("group %s: runner shutdown needs a shutdown section and an http or sse one", g.ID)
	}
	if h == nil {
		h = &httpload.Spec{} // no HTTP workers; the frozen batch takes its defaults
	}
	r, err := NewShutdownRunner(spec, h)
	if err != nil || subs == nil {
		return r, err
	}
	if r.sse, err = sse.New(*subs); err != nil {
		return nil, fmt.Errorf("group %s: %w", g.ID, err)
	}
	return r, nil
}

// NewShutdownRunner builds a shutdown runner from its sections.
func NewShutdownRunner(spec *ShutdownSpec, load *httpload.Spec) (*ShutdownRunner, error) {
	s := spec.withDefaults()
	sig, err := ParseSignal(s.Signal)
	if err != nil {
		return nil, fmt.Errorf("shutdown: %w", err)
	}
	r := &ShutdownRunner{spec: s, sig: sig, load: httpload.NewRunner(load)}
	if s.Freeze > 0 {
		// The frozen batch shares the load's transport settings but goes
		// through net/http, whose trace says when each request is written;
		// its timeout outlasts the grace, so only the target can cut it.
		fs := *load
		fs.Requests = []httpload.Request{{Name: "freeze", URL: s.FreezeURL}}
		fs.Client = "net/http"
		fs.Timeout = runners.Duration{Duration: s.After.D() + s.Grace.D() + 10*time.Second}
		r.freeze = httpload.NewRunner(&fs)
	}
	return r, nil
}

// Prepare readies the HTTP clients.
func (r *ShutdownRunner) Prepare(ctx context.Context, env *runners.StepEnv) error {
	if err := r.load.Prepare(ctx, env); err != nil {
		return fmt.Errorf("shutdown: preparing the load: %w", err)
	}
	if r.freeze != nil {
		if err := r.freeze.Prepare(ctx, env); err != nil {
			return fmt.Errorf("shutdown: preparing the frozen batch: %w", err)
		}
	}
	r.out = ShutdownOutcome{}
	return nil
}

// NewWorker is not used: the runner drives its own load.
func (r *ShutdownRunner) NewWorker(int, *runners.Recorder) (runners.Worker, error) {
	return nil, errors.New("shutdown: the runner drives its own load (runners.Driver)")
}

// Outcome is what the last Drive measured.
func (r *ShutdownRunner) Outcome() ShutdownOutcome { return r.out }

// Finish puts the outcome into the step: counters, extra figures and the
// checks `dropped_in_flight == 0` and `exited within grace`.
func (r *ShutdownRunner) Finish(_ context.Context, _ *runners.StepEnv, res *artifacts.Step) error {
	o := r.out
	if res.Counters == nil {
		res.Counters = map[string]int64{}
	}
	for k, v := range o.counters() {
		res.Counters[k] = v
	}
	if res.Extra == nil {
		res.Extra = map[string]any{}
	}
	res.Extra["signal"] = r.spec.Signal
	res.Extra["after_s"] = r.spec.After.D().Seconds()
	if !o.Signaled {
		res.Checks = append(res.Checks, artifacts.Check{Name: "signal sent", OK: false, Note: "the step ended before the signal"})
		return nil
	}
	res.Extra["time_to_exit_ms"] = round3(float64(o.TimeToExit) / float64(time.Millisecond))
	res.Extra["exit_status"] = o.ExitStatus
	res.Extra["exited_within_grace"] = o.ExitedInGrace
	res.Checks = append(res.Checks,
		artifacts.Check{Name: "dropped_in_flight == 0", OK: o.DroppedInFlight == 0, Value: float64(o.DroppedInFlight)},
		artifacts.Check{Name: "exited within grace", OK: o.ExitedInGrace, Value: round3(o.TimeToExit.Seconds())})
	return nil
}

// Close drops the clients' idle connections.
func (r *ShutdownRunner) Close() error {
	err := r.load.Close()
	if r.freeze != nil {
		err = errors.Join(err, r.freeze.Close())
	}
	if r.sse != nil {
		err = errors.Join(err, r.sse.Close())
	}
	return err
}
