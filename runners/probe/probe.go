// Package probe reads a group's probes (the plan's `probes:`) during a
// step: each probe is a named number read every interval from a SQL
// scalar, a JSON value of an HTTP reply, a command's output or a
// Prometheus metric, and kept as a bounded series with its least,
// greatest and last value and its slope.
//
// A Set runs one goroutine per probe, tied to the context it is started
// with; every read is bounded in time (the probe's timeout, at most
// plan.MaxProbeTimeout) and in size (MaxBodyBytes, MaxOutputBytes), and
// reads of one probe never overlap. A read that fails is a gap in the
// series and a counted error, its message redacted; it never stops the
// step. So is a read of NaN or ±Inf (a summary's empty quantile, "nan"
// from a command): a series holds finite numbers only.
package probe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/plan"
)

// Limits of a read: what a hostile server or command can make benchtui
// hold.
const (
	// MaxBodyBytes is the largest reply body (JSON or a metrics page) a
	// read accepts; a larger one is a failed read.
	MaxBodyBytes = 1 << 20
	// MaxOutputBytes is the most stdout a command probe may write.
	MaxOutputBytes = 64 << 10
)

// Reader reads one probe's value. Read is called from one goroutine at a
// time, with a context that carries the read's timeout.
type Reader interface {
	Read(ctx context.Context) (float64, error)
	Close() error
}

// NewReader returns the reader of p. embeddedDSN is the group's embedded
// cluster's DSN, for `dsn: embedded` ("" when it has none).
func NewReader(p plan.Probe, embeddedDSN string) (Reader, error) {
	switch {
	case p.SQL != "":
		dsn := p.DSN
		if dsn == "embedded" {
			if embeddedDSN == "" {
				return nil, errors.New("dsn: embedded, but the group started no embedded cluster")
			}
			dsn = embeddedDSN
		}
		return &sqlReader{dsn: dsn, sql: p.SQL}, nil
	case p.HTTP != nil:
		return newJSONReader(*p.HTTP)
	case p.Metric != nil:
		return newMetricReader(*p.Metric), nil
	case len(p.Command) > 0:
		return &commandReader{argv: p.Command}, nil
	}
	return nil, errors.New("no source: give sql, http, command or metric")
}

// parseNumber reads one number from text, trimmed of white space.
func parseNumber(s string) (float64, error) {
	s = strings.TrimSpace(s)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if len(s) > 40 {
			s = s[:37] + "..."
		}
		return 0, fmt.Errorf("not a number: %q", s)
	}
	return v, nil
}

// Clock tells a Set where the step stands: t is the active time of the
// measured phase, and ok is false while reads must not be taken (paused).
type Clock func() (t time.Duration, ok bool)

// Options are a Set's surroundings.
type Options struct {
	// EmbeddedDSN is the group's embedded cluster's DSN, "" without one.
	EmbeddedDSN string
	// Redact cleans an error message of secrets (plan.Plan.Redact);
	// plan.RedactURLs is applied in any case.
	Redact func(string) string
	// Clock places reads in time; required.
	Clock Clock
}

// Set is the probes of one step being read.
type Set struct {
	probes   []*running
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	stopOnce sync.Once
}

// running is one probe of a Set: its reader and its series.
type running struct {
	spec   plan.Probe
	reader Reader
	opts   Options

	mu      sync.Mutex
	series  series
	lastErr string
}

// Start starts reading specs: one goroutine each, until Stop or ctx ends.
func Start(ctx context.Context, specs []plan.Probe, opts Options) *Set {
	ctx, cancel := context.WithCancel(ctx)
	s := &Set{cancel: cancel}
	for _, spec := range specs {
		r := &running{spec: spec, opts: opts}
		r.series.init()
		reader, err := NewReader(spec, opts.EmbeddedDSN)
		if err != nil {
			reader = failing{err}
		}
		r.reader = reader
		s.probes = append(s.probes, r)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			r.loop(ctx)
		}()
	}
	return s
}

// loop reads the probe now and then every interval until ctx ends; a
// read slower than the interval delays the next (ticks are dropped), so
// reads never pile up.
func (r *running) loop(ctx context.Context) {
	tick := time.NewTicker(r.spec.Every())
	defer tick.Stop()
	for {
		r.readOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (r *running) readOnce(ctx context.Context) {
	if _, ok := r.opts.Clock(); !ok {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, r.spec.ProbeTimeout())
	v, err := r.reader.Read(rctx)
	cancel()
	if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
		err = fmt.Errorf("not a finite number: %v", v)
	}
	if ctx.Err() != nil {
		return // stopped mid-read: the step is over, not the probe broken
	}
	t, ok := r.opts.Clock()
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.series.gap(t.Seconds())
		r.lastErr = r.redact(err.Error())
		return
	}
	r.series.add(t.Seconds(), v)
}

func (r *running) redact(msg string) string {
	msg = plan.RedactURLs(msg)
	if r.opts.Redact != nil {
		msg = r.opts.Redact(msg)
	}
	return msg
}

// Live is a probe's figures so far, for a snapshot: nothing in it is
// shared with the Set.
type Live struct {
	Name    string
	Stats   artifacts.ProbeStats // without its series
	Values  []float64            // the kept reads, gaps left out, oldest first
	LastErr string
}

// Live returns each probe's figures so far, in the plan's order.
func (s *Set) Live() []Live {
	if s == nil {
		return nil
	}
	out := make([]Live, len(s.probes))
	for i, r := range s.probes {
		r.mu.Lock()
		out[i] = Live{Name: r.spec.Name, Stats: r.series.stats(false), Values: r.series.values(), LastErr: r.lastErr}
		r.mu.Unlock()
	}
	return out
}

// Stop ends the reads (an in-flight read is cancelled), waits for the
// goroutines, closes the readers, and returns each probe's figures by name
// and the last error message of each probe whose reads failed. The
// figures stay readable (Stats, Live) after it; a second Stop only reads
// them again.
func (s *Set) Stop() (stats map[string]artifacts.ProbeStats, errs map[string]string) {
	if s == nil || len(s.probes) == 0 {
		return nil, nil
	}
	s.stopOnce.Do(func() {
		s.cancel()
		s.wg.Wait()
		for _, r := range s.probes {
			_ = r.reader.Close()
		}
	})
	for _, r := range s.probes {
		r.mu.Lock()
		if r.lastErr != "" {
			if errs == nil {
				errs = map[string]string{}
			}
			errs[r.spec.Name] = r.lastErr
		}
		r.mu.Unlock()
	}
	return s.Stats(), errs
}

// failing is the reader of a probe that could not be set up: every read
// fails with its error.
type failing struct{ err error }

func (f failing) Read(context.Context) (float64, error) { return 0, f.err }
func (f failing) Close() error                          { return nil }

// Stats returns each probe's figures so far by name, with their series;
// nil without probes.
func (s *Set) Stats() map[string]artifacts.ProbeStats {
	if s == nil || len(s.probes) == 0 {
		return nil
	}
	out := make(map[string]artifacts.ProbeStats, len(s.probes))
	for _, r := range s.probes {
		r.mu.Lock()
		out[r.spec.Name] = r.series.stats(true)
		r.mu.Unlock()
	}
	return out
}

// ReadOnce reads p once, outside a Set (a verify entry's `probe:`), within
// its timeout: the same reader and the same bounds as the Set's reads. A
// read of NaN or ±Inf is an error, as in a Set.
func ReadOnce(ctx context.Context, p plan.Probe, embeddedDSN string) (float64, error) {
	reader, err := NewReader(p, embeddedDSN)
	if err != nil {
		return 0, err
	}
	defer func() { _ = reader.Close() }()
	ctx, cancel := context.WithTimeout(ctx, p.ProbeTimeout())
	defer cancel()
	v, err := reader.Read(ctx)
	if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
		err = fmt.Errorf("not a finite number: %v", v)
	}
	return v, err
}
