package plan

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/benchtui/benchtui/runners/tmpl"
)

// Plan is a parsed and validated plan file.
type Plan struct {
	// Path is the file the plan was read from ("<built-in demo>" for the demo).
	Path string `yaml:"-"`
	// SHA256 is the hex digest of the file's bytes before ${VAR} expansion.
	SHA256    string                 `yaml:"-"`
	Version   int                    `yaml:"version,required"`
	Artifacts string                 `yaml:"artifacts"`
	Targets   map[string]*TargetSpec `yaml:"targets"`
	// Groups are decoded by hand (their runner sections come from the Schema).
	Groups []*Group `yaml:"-"`
	// Secrets are the expanded values of ${VAR}s named like secrets; they are
	// redacted wherever they appear in output.
	Secrets []string `yaml:"-"`
	// EnvNames are the environment variables the plan read (${VAR} and
	// {{env "VAR"}} that were set), sorted: what another machine running
	// the plan needs set the same way.
	EnvNames []string `yaml:"-"`
}

// TargetSpec is a watched process: spawned from Command, or attached by PID,
// PIDFile, Cgroup or Container (a container's name, resolved by Runtime to
// its cgroup folder: see container.go).
type TargetSpec struct {
	Command      []string          `yaml:"command"`
	Build        []string          `yaml:"build"`
	Ready        string            `yaml:"ready"`
	ReadyTimeout Duration          `yaml:"ready_timeout"`
	Env          map[string]string `yaml:"env"`
	Dir          string            `yaml:"dir"`
	PID          int               `yaml:"pid"`
	PIDFile      string            `yaml:"pidfile"`
	Cgroup       string            `yaml:"cgroup"`
	Container    string            `yaml:"container"`
	Runtime      string            `yaml:"runtime"`
	Tree         bool              `yaml:"tree"`
	Sample       Duration          `yaml:"sample"`
	StopGrace    Duration          `yaml:"stop_grace"`
	// Metrics, Log and Pprof read the server's own figures (srvmetrics.go).
	Metrics *TargetMetrics `yaml:"metrics"`
	Log     *TargetLog     `yaml:"log"`
	Pprof   *TargetPprof   `yaml:"pprof"`
	Pos     Pos            `yaml:"-"`
}

// Group is one bench group of a plan.
type Group struct {
	ID    string `yaml:"id,required"`
	Title string `yaml:"title"`
	// Target is the group's first watched target (`target: api` or the
	// first of `target: [api, worker]`); Targets are all of them, in the
	// order written, and TargetPos where each is written (targets.go).
	Target    string   `yaml:"-"`
	Targets   []string `yaml:"-"`
	TargetPos []Pos    `yaml:"-"`
	// Runner is the group's runner kind; LoadsRunner for a group with
	// loads, which names no runner of its own.
	Runner string `yaml:"runner"`
	Load   Load   `yaml:"load"`
	// Loads are the group's named loads (`loads:`), run together on the
	// group's clock; nil without that key.
	Loads []*NamedLoad         `yaml:"-"`
	Sweep map[string][]float64 `yaml:"sweep"`
	// Vars are named values that request templates, SQL args ($var:NAME)
	// and per-step setup read as {{.NAME}}; a var of several values is
	// swept like a sweep key, one step per value (steps.go).
	Vars     map[string][]string `yaml:"vars"`
	Warmup   Duration            `yaml:"warmup"`
	Duration Duration            `yaml:"duration"`
	// Iterations ends each step after this many operations in all, shared
	// by the workers; PerWorkerIterations after this many per worker
	// (closed loop only). Either replaces Duration; MaxDuration caps the
	// step (DefaultMaxDuration when not given).
	Iterations          int64    `yaml:"iterations"`
	PerWorkerIterations int64    `yaml:"per_worker_iterations"`
	MaxDuration         Duration `yaml:"max_duration"`
	// Data is the group's data file, whose rows request templates read
	// ({{.col}}); Table is its rows, read when the plan is validated.
	Data  *Data       `yaml:"data"`
	Table *tmpl.Table `yaml:"-"`
	// reads are the names that the group's strings read ({{.N}}, $var:N).
	reads map[string]bool
	// src holds the values of the plan's {{env "NAME"}} actions and how
	// its fields were made of text and ${VAR} values (template.go).
	src  *fieldSources
	Soak *Soak `yaml:"soak"`
	// Probes are numbers read every interval during each step (probes.go).
	Probes       []Probe    `yaml:"probes"`
	Thresholds   Thresholds `yaml:"thresholds"`
	OnTargetExit string     `yaml:"on_target_exit"`
	// Actions are done at offsets of each measured step (actions.go).
	Actions []*Action `yaml:"actions"`
	// Windows are spans of each step tied to an action, measured apart
	// (windows.go).
	Windows []Window `yaml:"windows"`
	// Setup and Teardown run before the first step and after the last, or
	// around every step (setup.go).
	Setup    []*Task `yaml:"setup"`
	Teardown []*Task `yaml:"teardown"`
	// Repeat runs every step this many times (default 1): each run is one
	// sample of every figure for comparisons.
	Repeat int `yaml:"repeat"`
	// Block is the length of a within-run sample for comparisons
	// (default 1s): the measured time is cut into blocks of it.
	Block Duration `yaml:"block"`
	// Sections holds the runner sections (`http:`, `postgres:`, …) decoded
	// into the types registered with the group's runner kind declares (runners.Kind.Sections).
	Sections map[string]any `yaml:"-"`
	// SectionPos is where each section starts in the file.
	SectionPos map[string]Pos `yaml:"-"`
	// Raw is the group after ${VAR} expansion, with secrets redacted, for
	// the artifact's config.
	Raw map[string]any `yaml:"-"`
	// Written is the group as written, ${VAR}s unexpanded (secret-named
	// keys redacted): what comparisons hold two runs' configs against.
	Written map[string]any `yaml:"-"`
	Pos     Pos            `yaml:"-"`
}

// Data is a group's `data:` key: a CSV file with a header row or a
// JSON-lines file, relative to the plan file, and how requests take its
// rows (tmpl.Sequential by default, tmpl.Random or tmpl.Unique).
type Data struct {
	File string `yaml:"file,required"`
	Mode string `yaml:"mode"`
}

// DefaultMaxDuration caps a step that ends after a count of operations
// when the plan gives no max_duration.
const DefaultMaxDuration = 10 * time.Minute

// MaxIterations bounds iterations and per_worker_iterations.
const MaxIterations = 1_000_000_000_000

// Counted reports whether g's steps end after a count of operations.
func (g *Group) Counted() bool { return g.Iterations > 0 || g.PerWorkerIterations > 0 }

// Load is the shape of the load: closed loop with Concurrency workers, or
// open loop at Rate arrivals per second (or in rate Stages) with at most
// MaxInFlight pending.
type Load struct {
	Concurrency int     `yaml:"concurrency"`
	Rate        float64 `yaml:"rate"`
	Stages      []Stage `yaml:"stages"` // instead of Rate: the rate over time (stages.go)
	MaxInFlight int     `yaml:"max_in_flight"`
	// Timeout bounds one operation; 0 means the runner's default.
	Timeout Duration `yaml:"timeout"`
}

// OpenLoop reports whether arrivals are scheduled at a rate (fixed, or
// in stages).
func (l Load) OpenLoop() bool { return l.Rate > 0 || len(l.Stages) > 0 }

// Workers is the number of worker goroutines the load needs.
func (l Load) Workers() int {
	if l.OpenLoop() {
		return l.MaxInFlight
	}
	return l.Concurrency
}

// Soak holds the soak policy of a group.
type Soak struct {
	ExtendWhileRSSRising *RSSRule `yaml:"extend_while_rss_rising"`
	// ExtendWhileRising extends while a probe's series rises (soakseries.go).
	ExtendWhileRising *SeriesRule `yaml:"extend_while_rising"`
}

// RSSRule extends a step by Step while the target's RSS tail slope over
// Window is above SlopeMBPerMin, until the step has run Max in all (its
// duration included).
type RSSRule struct {
	SlopeMBPerMin float64  `yaml:"slope_mb_per_min,required"`
	Window        Duration `yaml:"window"`
	Step          Duration `yaml:"step,required"`
	Max           Duration `yaml:"max,required"`
	// Target names which of the group's targets the rule watches (default:
	// the first).
	Target string `yaml:"target"`
}

// Thresholds are the pass/fail limits of a group's steps. A nil field is
// not checked. Checks are limits on any figure by path (see FigureCheck).
type Thresholds struct {
	P50       *Duration     `yaml:"p50"`
	P90       *Duration     `yaml:"p90"`
	P95       *Duration     `yaml:"p95"` // read from the step's histogram: the stored percentiles have no p95
	P99       *Duration     `yaml:"p99"`
	P999      *Duration     `yaml:"p999"`
	Max       *Duration     `yaml:"max"`
	ErrorRate *float64      `yaml:"error_rate"`
	MinRPS    *float64      `yaml:"min_rps"`
	Dropped   *int64        `yaml:"dropped"`
	Checks    []FigureCheck `yaml:"checks"`
}

// Section returns g's decoded section of that name as the *T its kind
// declared, or nil when g has no such section.
func Section[T any](g *Group, name string) *T {
	v, _ := g.Sections[name].(*T)
	return v
}

// SoakRule is the group's soak window and RSS slope threshold (MB/min),
// with defaults (60 s, 1 MB/min) for groups without a soak policy: the
// console's "RSS rising" banner uses them too.
func (g *Group) SoakRule() (window time.Duration, slope float64) {
	window, slope = 60*time.Second, 1.0
	if g.Soak != nil && g.Soak.ExtendWhileRSSRising != nil {
		r := g.Soak.ExtendWhileRSSRising
		slope = r.SlopeMBPerMin
		if r.Window.D() > 0 {
			window = r.Window.D()
		}
	}
	return window, slope
}

// Pos is a place in a plan file.
type Pos struct {
	File   string
	Line   int
	Column int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column) }

// PosError is a plan problem at a place in the file.
type PosError struct {
	Pos Pos
	Key string
	Msg string
}

func (e *PosError) Error() string {
	if e.Key == "" {
		return Printable(fmt.Sprintf("%s: %s", e.Pos, e.Msg))
	}
	return Printable(fmt.Sprintf("%s: %s: %s", e.Pos, e.Key, e.Msg))
}

// Printable escapes the control characters of s (ESC, CR, LF, NUL, …) as
// Go does in quoted strings, so that text from a plan, a server or an
// artifact cannot move the cursor, retitle the terminal or forge lines.
func Printable(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Errorf builds a PosError; runners use it in Kind.Validate.
func Errorf(p Pos, key, format string, args ...any) error {
	return &PosError{Pos: p, Key: key, Msg: fmt.Sprintf(format, args...)}
}

// Duration is a time.Duration written in the plan as "250ms", "5s", "2m".
type Duration struct{ time.Duration }

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return d.Duration }
