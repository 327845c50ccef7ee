package plan

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/theory/jsonpath"
)

// Probe is one entry of a group's `probes:` list: a named number read
// every Interval during each step's measured phase, from exactly one
// source: a SQL scalar, a JSON value of an HTTP reply, a command's output
// or a Prometheus metric. runners/probe reads it.
type Probe struct {
	Name string `yaml:"name,required"`
	// Interval is the time between reads (DefaultProbeInterval, at least
	// MinProbeInterval).
	Interval Duration `yaml:"interval"`
	// Timeout bounds one read (default the interval, at most
	// MaxProbeTimeout).
	Timeout Duration `yaml:"timeout"`
	// SQL is a query whose first column of the first row is the value; DSN
	// is the database, "embedded" for the group's embedded cluster.
	SQL string `yaml:"sql"`
	DSN string `yaml:"dsn"`
	// HTTP reads a JSON value from a GET reply.
	HTTP *ProbeHTTP `yaml:"http"`
	// Command is run (no shell) at each read; its stdout is one number.
	Command []string `yaml:"command"`
	// Metric reads one sample of a Prometheus text exposition page.
	Metric *ProbeMetric `yaml:"metric"`
	Pos    Pos          `yaml:"-"`
	// Target names the target whose `metrics:` series this probe is
	// (empty for a probe of the plan's `probes:`); a series of a target
	// after the group's first is named TARGET/NAME.
	Target string `yaml:"-"`
}

// ProbeHTTP is a probe's `http:` source: GET URL, and the RFC 9535
// JSONPath of the number in the reply's JSON body.
type ProbeHTTP struct {
	URL     string            `yaml:"url,required"`
	JSON    string            `yaml:"json,required"`
	Headers map[string]string `yaml:"headers"`
}

// ProbeMetric is a probe's `metric:` source: the sample named Name (with
// at least the given Labels) of the Prometheus text page at URL.
type ProbeMetric struct {
	URL     string            `yaml:"url,required"`
	Name    string            `yaml:"name,required"`
	Labels  map[string]string `yaml:"labels"`
	Headers map[string]string `yaml:"headers"`
}

// Bounds of probes.
const (
	DefaultProbeInterval = time.Second
	MinProbeInterval     = 100 * time.Millisecond
	MaxProbeInterval     = time.Hour
	MaxProbeTimeout      = 10 * time.Second
	MaxProbes            = 32
)

// ProbeTimeout is how long one read of p may take: its timeout, else its
// interval, at most MaxProbeTimeout.
func (p *Probe) ProbeTimeout() time.Duration {
	t := p.Timeout.D()
	if t <= 0 {
		t = p.Every()
	}
	return min(t, MaxProbeTimeout)
}

// Every is p's interval, DefaultProbeInterval when not given.
func (p *Probe) Every() time.Duration {
	if p.Interval.D() <= 0 {
		return DefaultProbeInterval
	}
	return p.Interval.D()
}

// validProbeName is what a probe's name may be: it is a figure path's
// segment (probes.NAME.max), so no dots.
var validProbeName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)

// validMetricName is the Prometheus metric name syntax.
var validMetricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)

// validateProbes checks the group's probes: unique names, exactly one
// source each, interval and timeout bounds, and each source's own fields.
func (g *Group) validateProbes() []error {
	errs := g.tooMany("probes", len(g.Probes), MaxProbes)
	seen := map[string]bool{}
	for i := range g.Probes {
		p := &g.Probes[i]
		at := func(field, format string, args ...any) {
			errs = append(errs, Errorf(p.Pos, fmt.Sprintf("group %s: probes[%d].%s", g.ID, i, field), format, args...))
		}
		switch {
		case p.Target == "" && !validProbeName.MatchString(p.Name): // a target's series are checked as its metrics
			at("name", "%q: want 1 to 64 letters, digits, '_' or '-', starting with a letter or '_' (it names the probe's figures: probes.NAME.max)", p.Name)
		case seen[p.Name]:
			at("name", "probe %q given twice", p.Name)
		}
		seen[p.Name] = true
		if d := p.Interval.D(); d != 0 && (d < MinProbeInterval || d > MaxProbeInterval) {
			at("interval", "want %s to %s, got %s", MinProbeInterval, MaxProbeInterval, d)
		}
		if d := p.Timeout.D(); d > MaxProbeTimeout {
			at("timeout", "want at most %s, got %s", MaxProbeTimeout, d)
		}
		p.validateSource(g, at)
	}
	return errs
}

// validateSource checks that p has exactly one source, and that source.
func (p *Probe) validateSource(g *Group, at func(field, format string, args ...any)) {
	set := 0
	for _, given := range []bool{p.SQL != "", p.HTTP != nil, len(p.Command) > 0, p.Metric != nil} {
		if given {
			set++
		}
	}
	if set != 1 {
		at("sql", "give exactly one of sql, http, command or metric, got %d", set)
		return
	}
	if p.DSN != "" && p.SQL == "" {
		at("dsn", "dsn goes with sql")
	}
	switch {
	case p.SQL != "":
		if problem := probeDSNProblem(p.DSN, g); problem != "" {
			at("dsn", "%s", problem)
		}
	case p.HTTP != nil:
		if problem := probeURLProblem(p.HTTP.URL); problem != "" {
			at("http.url", "%s", problem)
		}
		if _, err := jsonpath.Parse(p.HTTP.JSON); err != nil {
			at("http.json", "%q is no RFC 9535 JSONPath: %v", p.HTTP.JSON, err)
		}
	case p.Metric != nil:
		if problem := probeURLProblem(p.Metric.URL); problem != "" {
			at("metric.url", "%s", problem)
		}
		if !validMetricName.MatchString(p.Metric.Name) {
			at("metric.name", "%q is no Prometheus metric name", p.Metric.Name)
		}
	case p.Command[0] == "":
		at("command", "the program (command[0]) is empty")
	}
}

// probeDSNProblem says what is wrong with a SQL probe's dsn, "" when
// nothing is: it needs a postgres:// URL, a key=value DSN, or "embedded"
// in a postgres group whose own dsn is embedded.
func probeDSNProblem(dsn string, g *Group) string {
	switch {
	case dsn == "":
		return "missing: sql needs a postgres dsn (a postgres:// URL, key=value, or embedded)"
	case dsn == "embedded":
		pg, _ := g.Raw["postgres"].(map[string]any)
		if g.Runner != "postgres" || pg["dsn"] != "embedded" {
			return "embedded names the group's embedded cluster: only a postgres group with postgres.dsn: embedded has one"
		}
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
	case strings.Contains(dsn, "="):
	default:
		return "want a postgres:// URL, a key=value DSN, or embedded"
	}
	return ""
}

// probeURLProblem says what is wrong with a probe's URL, "" when nothing
// is. Where it points is RemoteWarnings' to say, as for any url: key.
func probeURLProblem(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Sprintf("bad URL: %v", RedactURLs(err.Error()))
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("want an http:// or https:// URL, got scheme %q", u.Scheme)
	case u.Host == "":
		return "the URL names no host"
	}
	return ""
}
