package plan

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// TargetMetrics is a target's `metrics:` key: the server's own Prometheus
// page, read every Every during each measured phase. Each entry of Series
// becomes a probe of every group that watches the target (a `metric:`
// probe, read by runners/probe like any other), so its figures are
// probes.NAME.{min,max,last,slope_per_min} in the artifact and in checks,
// and a soak policy's extend_while_rising can name it.
//
// A Series entry is a metric name ("go_memstats_heap_inuse_bytes", whose
// probe is named after it) or ALIAS=METRIC ("heap_inuse=go_memstats_heap_inuse_bytes").
// A summary's or histogram's parts are METRIC_sum and METRIC_count.
type TargetMetrics struct {
	URL     string            `yaml:"url,required"`
	Every   Duration          `yaml:"every"`
	Timeout Duration          `yaml:"timeout"`
	Series  []string          `yaml:"series,required"`
	Headers map[string]string `yaml:"headers"`
}

// TargetLog is a target's `log:` key: lines of its log matching each
// pattern (RE2) are counted during each measured phase, as the step's
// counters log.NAME. The log is the spawned target's output (stdout and
// stderr), or File, a file another process writes, or the output of
// Command (`journalctl -f -u UNIT -o cat`), which benchtui runs while the
// target runs and writes to <artifacts>/<target>-log.log.
type TargetLog struct {
	Patterns map[string]string `yaml:"patterns,required"`
	File     string            `yaml:"file"`
	Command  []string          `yaml:"command"`
}

// TargetPprof is a target's `pprof:` key: a heap profile fetched from URL
// at each moment of At ("start": when the measured phase begins, "end":
// when it ends), saved beside the artifact; with CPU, also a CPU profile
// of the measured window (CPUURL).
type TargetPprof struct {
	URL     string   `yaml:"url,required"`
	At      []string `yaml:"at"`
	Timeout Duration `yaml:"timeout"`
	CPU     bool     `yaml:"cpu"`
}

// Bounds of a target's metrics, log and pprof keys.
const (
	MaxLogPatterns      = 16
	MaxLogCommandArgs   = 64
	MaxLogCommandArg    = 4096
	DefaultPprofTimeout = 30 * time.Second
	MaxPprofTimeout     = 5 * time.Minute
	// MaxCPUProfile bounds a CPU profile: a longer measured window has
	// its first MaxCPUProfile profiled.
	MaxCPUProfile = 5 * time.Minute
)

// CPUURL is the URL of a CPU profile of d (whole seconds, at least 1, at
// most MaxCPUProfile) from the same net/http/pprof: URL with its last
// path segment "heap" made "profile", its query's gc dropped and seconds
// set. ok is false when URL's path does not end in /heap.
func (p *TargetPprof) CPUURL(d time.Duration) (string, bool) {
	u, err := url.Parse(p.URL)
	if err != nil || !strings.HasSuffix(u.Path, "/heap") {
		return "", false
	}
	u.Path = strings.TrimSuffix(u.Path, "heap") + "profile"
	u.RawPath = ""
	q := u.Query()
	q.Del("gc")
	q.Set("seconds", strconv.Itoa(CPUProfileSeconds(d)))
	u.RawQuery = q.Encode()
	return u.String(), true
}

// CPUProfileSeconds is how many seconds a CPU profile of a measured
// window of d covers: d rounded up, at least 1, at most MaxCPUProfile.
func CPUProfileSeconds(d time.Duration) int {
	s := int((min(d, MaxCPUProfile) + time.Second - 1) / time.Second)
	return max(s, 1)
}

// PprofTimeout bounds one profile fetch.
func (p *TargetPprof) PprofTimeout() time.Duration {
	if d := p.Timeout.D(); d > 0 {
		return min(d, MaxPprofTimeout)
	}
	return DefaultPprofTimeout
}

// Moments are the moments of At, ["start", "end"] when not given.
func (p *TargetPprof) Moments() []string {
	if len(p.At) == 0 {
		return []string{"start", "end"}
	}
	return p.At
}

var validLogName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)

// validateServer checks a target's metrics, log and pprof keys.
func (t *TargetSpec) validateServer(name string) []error {
	var errs []error
	at := func(field, format string, args ...any) {
		errs = append(errs, Errorf(t.Pos, "targets."+name+"."+field, format, args...))
	}
	if m := t.Metrics; m != nil {
		if problem := probeURLProblem(m.URL); problem != "" {
			at("metrics.url", "%s", problem)
		}
		if d := m.Every.D(); d != 0 && (d < MinProbeInterval || d > MaxProbeInterval) {
			at("metrics.every", "want %s to %s, got %s", MinProbeInterval, MaxProbeInterval, d)
		}
		if d := m.Timeout.D(); d > MaxProbeTimeout {
			at("metrics.timeout", "want at most %s, got %s", MaxProbeTimeout, d)
		}
		for i, s := range m.Series {
			if _, _, problem := splitSeries(s); problem != "" {
				at(fmt.Sprintf("metrics.series[%d]", i), "%s", problem)
			}
		}
	}
	if l := t.Log; l != nil {
		t.validateLog(l, at)
	}
	if p := t.Pprof; p != nil {
		if problem := probeURLProblem(p.URL); problem != "" {
			at("pprof.url", "%s", problem)
		}
		for i, m := range p.At {
			if m != "start" && m != "end" {
				at(fmt.Sprintf("pprof.at[%d]", i), "want start or end, got %q", m)
			}
		}
		if d := p.Timeout.D(); d > MaxPprofTimeout {
			at("pprof.timeout", "want at most %s, got %s", MaxPprofTimeout, d)
		}
		if _, ok := p.CPUURL(time.Second); p.CPU && !ok {
			at("pprof.cpu", "the CPU profile is fetched from url with /heap made /profile: want a url ending in /heap, got %q", p.URL)
		}
	}
	return errs
}

func (t *TargetSpec) validateLog(l *TargetLog, at func(field, format string, args ...any)) {
	if len(l.Patterns) == 0 {
		at("log.patterns", "give at least one NAME: REGEXP")
	}
	if len(l.Patterns) > MaxLogPatterns {
		at("log.patterns", "want at most %d patterns, got %d", MaxLogPatterns, len(l.Patterns))
	}
	for k, re := range l.Patterns {
		if !validLogName.MatchString(k) {
			at("log.patterns."+k, "want 1 to 64 letters, digits, '_' or '-' (it names the counter log.NAME)")
		}
		if _, err := regexp.Compile(re); err != nil {
			at("log.patterns."+k, "%q is no RE2 regular expression: %v", re, err)
		}
	}
	if l.File != "" && len(l.Command) > 0 {
		at("log", "give file or command, not both")
	}
	if l.File == "" && len(l.Command) == 0 && len(t.Command) == 0 {
		at("log", "an attached target has no output benchtui holds: give log.file or log.command")
	}
	if problem := logCommandProblem(l.Command); problem != "" {
		at("log.command", "%s", problem)
	}
}

// splitSeries reads a metrics series entry: METRIC or ALIAS=METRIC.
func splitSeries(s string) (name, metric, problem string) {
	name, metric, renamed := strings.Cut(s, "=")
	if !renamed {
		metric = s
	}
	name, metric = strings.TrimSpace(name), strings.TrimSpace(metric)
	switch {
	case !validMetricName.MatchString(metric):
		return "", "", fmt.Sprintf("%q is no Prometheus metric name (want METRIC or ALIAS=METRIC)", metric)
	case !validProbeName.MatchString(name):
		return "", "", fmt.Sprintf("%q names a probe (probes.NAME): want 1 to 64 letters, digits, '_' or '-'; write ALIAS=METRIC", name)
	}
	return name, metric, ""
}

// metricProbes are the probes a group gets from its targets' `metrics:`
// keys (see TargetMetrics): the first target's series by their names,
// each further target's as TARGET/NAME; nil when none has any.
func (p *Plan) metricProbes(g *Group) []Probe {
	var out []Probe
	for i, target := range g.Targets {
		t := p.Targets[target]
		if t == nil || t.Metrics == nil {
			continue
		}
		m := t.Metrics
		for _, s := range m.Series {
			name, metric, problem := splitSeries(s)
			if problem != "" {
				continue // reported by validateServer
			}
			out = append(out, Probe{
				Name: ServerFigureName(i, target, name), Interval: m.Every, Timeout: m.Timeout, Pos: t.Pos, Target: target,
				Metric: &ProbeMetric{URL: m.URL, Name: metric, Headers: m.Headers},
			})
		}
	}
	return out
}

// ServerFigureName is the name of a figure of a group's i-th target's own
// (a metrics series, a log pattern, a heap profile): NAME for the first,
// TARGET/NAME for each further one.
func ServerFigureName(i int, target, name string) string {
	if i == 0 {
		return name
	}
	return target + "/" + name
}
