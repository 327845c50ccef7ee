package runners

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// MaxWindowSpans bounds the spans of one window in a step: an action run
// every 100 ms for an hour would give 36,000; past this many, its runs
// open no more spans (the engine notes it).
const MaxWindowSpans = 1000

// WindowSet is the step's windows (a plan's windows:): spans of wall time
// tied to an action's runs, each with figures of its own, taken from the
// operations the step's recorders record. An operation belongs to a
// window when it was due (its latency's start) within one of its spans.
// It costs an atomic load per operation until a window first opens.
type WindowSet struct {
	opened  atomic.Bool
	windows []*Window
}

// Window is one window's spans and figures.
type Window struct {
	spans atomic.Pointer[[]span] // sorted by from, copied on change
	mu    sync.Mutex             // held to record into figs
	figs  *Named
}

// span is [from, to]; to is zero while the span is open.
type span struct{ from, to time.Time }

// NewWindowSet returns n windows, none open.
func NewWindowSet(n int) *WindowSet {
	ws := &WindowSet{windows: make([]*Window, n)}
	for i := range ws.windows {
		ws.windows[i] = &Window{figs: NewNamed()}
	}
	return ws
}

// Window is window i.
func (ws *WindowSet) Window(i int) *Window { return ws.windows[i] }

// Open starts a span of window i at from, ending at to (zero: until
// Close); false when the window has MaxWindowSpans spans already.
func (ws *WindowSet) Open(i int, from, to time.Time) bool {
	w := ws.windows[i]
	w.mu.Lock()
	defer w.mu.Unlock()
	old := w.loaded()
	if len(old) >= MaxWindowSpans {
		return false
	}
	spans := merged(append(slices.Clone(old), span{from: from, to: to}))
	w.spans.Store(&spans)
	ws.opened.Store(true)
	return true
}

// Close ends window i's open span at to.
func (ws *WindowSet) Close(i int, to time.Time) {
	w := ws.windows[i]
	w.mu.Lock()
	defer w.mu.Unlock()
	spans := slices.Clone(w.loaded())
	for k := range spans {
		if spans[k].to.IsZero() {
			spans[k].to = to
		}
	}
	w.spans.Store(&spans)
}

// merged sorts spans by start and joins those that overlap (an after
// window whose action ran again within it), so that each instant is in
// at most one span.
func merged(spans []span) []span {
	slices.SortFunc(spans, func(a, b span) int { return a.from.Compare(b.from) })
	out := spans[:0]
	for _, s := range spans {
		n := len(out)
		if n == 0 || (!out[n-1].to.IsZero() && out[n-1].to.Before(s.from)) {
			out = append(out, s)
			continue
		}
		if last := &out[n-1]; !last.to.IsZero() && (s.to.IsZero() || s.to.After(last.to)) {
			last.to = s.to
		}
	}
	return out
}

func (w *Window) loaded() []span {
	if p := w.spans.Load(); p != nil {
		return *p
	}
	return nil
}

// observe records an operation that ended now after latency in every
// window it was due in.
func (ws *WindowSet) observe(latency time.Duration, errKind string) {
	if ws == nil || !ws.opened.Load() {
		return
	}
	due := time.Now().Add(-latency)
	for _, w := range ws.windows {
		if w.holds(due) {
			w.mu.Lock()
			w.figs.observe(micros(latency), errKind)
			w.mu.Unlock()
		}
	}
}

// holds reports whether t is within one of the window's spans.
func (w *Window) holds(t time.Time) bool {
	spans := w.loaded()
	// the last span starting at or before t
	k, _ := slices.BinarySearchFunc(spans, t, func(s span, t time.Time) int {
		if s.from.After(t) {
			return 1
		}
		return -1
	})
	if k == 0 {
		return false
	}
	s := spans[k-1]
	return s.to.IsZero() || !t.After(s.to)
}

// Figures are a copy of the window's figures so far.
func (w *Window) Figures() *Named {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := NewNamed()
	c.Add(w.figs)
	return c
}

// Spans is how many spans the window has had.
func (w *Window) Spans() int { return len(w.loaded()) }
