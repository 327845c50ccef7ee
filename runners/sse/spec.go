// Package sse is benchtui's Server-Sent Events runner (`runner: sse`): a
// flood of subscribers, each holding one event stream, started all at once
// or in ramp batches, optionally reconnecting with backoff.
//
// The runner drives itself (runners.Driver). Its operations are received
// events: each is recorded once, with a latency taken from the event's own
// send time when the data carries one (a JSON `ts` field in unix
// milliseconds, or an `id` that is a unix-ms time), else the gap since the
// previous event. Per connection it records the time to the first event
// (extra "first_event"); it counts disconnects and reconnects and records
// each backoff (extra "backoff"). Failed connects are errored operations,
// and so is a connect still waiting for its response headers when the
// step ends (a timeout), unless it had only just begun.
package sse

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/httpload"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

const defaultTimeout = 10 * time.Second

// Spec is the `sse:` section of a group.
type Spec struct {
	// URL is the event stream's http:// or https:// URL.
	URL string `yaml:"url,required"`
	// Subscribers is how many streams to hold; 0 means the load's
	// concurrency (a `subscribers` sweep value wins over both).
	Subscribers int `yaml:"subscribers"`
	// Ramp starts subscribers in batches, "100/5s": 100 every 5 s. Empty
	// starts them all at once.
	Ramp string `yaml:"ramp"`
	// Headers are sent with every request (Authorization is redacted).
	Headers map[string]string `yaml:"headers"`
	// Reconnect re-opens a dropped stream after a backoff (full jitter: a
	// draw in [0, ceiling], the ceiling 500 ms doubling to 30 s) with
	// Last-Event-ID.
	Reconnect bool `yaml:"reconnect"`
	// Timeout bounds connecting and waiting for the response headers
	// (default 10s); an open stream has no timeout.
	Timeout plan.Duration `yaml:"timeout"`
	// InsecureSkipVerify skips TLS verification for https URLs.
	InsecureSkipVerify bool `yaml:"insecure_skip_verify"`
	// Flow is HTTP steps (http.flow's shape) each subscriber sends before
	// it connects, at every connect; the url and headers read what they
	// capture ({{.token}}).
	Flow []httpload.Request `yaml:"flow"`
	// Sources are the local addresses the subscribers connect from, each
	// an IP address or a CIDR block (127.0.0.0/29: 8 addresses), dealt
	// round them: subscriber i connects from address i mod their count.
	// One source address holds about runners.EphemeralPorts streams to
	// one server; 100,000 subscribers to a loopback server need four
	// (Linux routes all of 127.0.0.0/8 to the loopback device).
	Sources []string `yaml:"sources"`
}

// Section is the plan key of the SSE section.
const Section = "sse"

// NewSpec returns an empty section for the plan decoder.
func NewSpec() any { return &Spec{} }

// Kind is `runner: sse`: subscribers the runner holds itself (a Driver).
func Kind() runners.Kind {
	return runners.Kind{Name: "sse", Sections: map[string]func() any{Section: NewSpec}, Validate: validate, New: newKind,
		Params: []string{"subscribers"}, Units: units, Counters: counterNames}
}

// counterNames are a group's counters: the streams', and its flow's
// renewals and retries when a step of it renews.
func counterNames(g *plan.Group) []string {
	names := Counters()
	if s := specOf(g); s != nil {
		names = append(names, httpload.FlowCounters(s.Flow)...)
	}
	return names
}

// units is how many streams a group's step holds, and the key that says
// so: its subscribers, else its load's concurrency.
func units(g *plan.Group, load plan.Load, params map[string]float64) (int, string) {
	n := 0
	if s := specOf(g); s != nil {
		n = s.Subscribers
	}
	return runners.SubscriberUnits(params, n, Section+".subscribers", load)
}

// subscribers is a step's count of streams in the whole run: a
// subscribers sweep value, else the section's (0: the load's concurrency).
func (s *Spec) subscribers(params map[string]float64) int {
	return runners.SweptSubscribers(params, s.Subscribers)
}

func specOf(g *plan.Group) *Spec { return plan.Section[Spec](g, Section) }

func validate(g *plan.Group) []error {
	s := specOf(g)
	if s == nil {
		return []error{plan.Errorf(g.Pos, "sse", "runner sse needs an sse: section")}
	}
	key := "group " + g.ID + ": sse"
	var vars []string
	errs := g.NoCounts()
	if len(s.Flow) > 0 {
		var flowErrs []error
		vars, flowErrs = httpload.CheckBefore(g, s.Flow, g.SectionPos["sse"], key)
		errs = append(errs, flowErrs...)
	}
	errs = append(errs, g.TemplatesVars(g.SectionPos["sse"], plan.RequestFields(key, s.templateFields(), s.Headers), vars)...)
	for _, p := range s.problems() {
		errs = append(errs, plan.Errorf(g.SectionPos["sse"], "sse", "%s", p))
	}
	for i, v := range g.Sweep["subscribers"] {
		if v < 1 || v > plan.MaxWorkers || v != math.Trunc(v) {
			errs = append(errs, plan.Errorf(g.Pos, fmt.Sprintf("group %s: sweep.subscribers[%d]", g.ID, i), "want a whole number from 1 to %d, got %v", plan.MaxWorkers, v))
		}
	}
	return errs
}

func (s *Spec) problems() []string {
	var out []string
	if u, err := url.Parse(tmpl.Skeleton(s.URL)); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		out = append(out, fmt.Sprintf("url %q: want an http:// or https:// URL", s.URL))
	} else if tmpl.HostTemplated(s.URL) {
		out = append(out, fmt.Sprintf("url %q: %s", s.URL, tmpl.HostTemplatedProblem))
	}
	if s.Subscribers < 0 || s.Subscribers > plan.MaxWorkers {
		out = append(out, fmt.Sprintf("subscribers: want 0 to %d, got %d", plan.MaxWorkers, s.Subscribers))
	}
	out = append(out, plan.RequestProblems("", tmpl.Skeletons(s.Headers))...)
	if _, err := parseRamp(s.Ramp); err != nil {
		out = append(out, err.Error())
	}
	if _, err := runners.ParseSources("sources", s.Sources); err != nil {
		out = append(out, err.Error())
	}
	return out
}

// ramp is a batch size and the time between batches; zero starts all.
type ramp struct {
	n     int
	every time.Duration
}

// ParseRamp reads a ramp "N/D" (N subscribers every D) as its batch and
// period; "" is 0 and 0 (all at once).
func ParseRamp(s string) (int, time.Duration, error) {
	r, err := parseRamp(s)
	return r.n, r.every, err
}

// parseRamp reads "N/D" (N subscribers every D).
func parseRamp(s string) (ramp, error) {
	if s == "" {
		return ramp{}, nil
	}
	ns, ds, ok := strings.Cut(s, "/")
	n, err := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || err != nil || n <= 0 {
		return ramp{}, fmt.Errorf("ramp %q: want N/duration, like 100/5s", s)
	}
	d, err := time.ParseDuration(strings.TrimSpace(ds))
	if err != nil || d <= 0 {
		return ramp{}, fmt.Errorf("ramp %q: want N/duration, like 100/5s", s)
	}
	return ramp{n: n, every: d}, nil
}
