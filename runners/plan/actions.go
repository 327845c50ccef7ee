package plan

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// Action is one entry of a group's `actions:` list: something done at an
// offset of each measured step (At), every Every of it, or once when a
// figure of the running step first meets a limit (When), while the load
// runs. Exactly one of Signal, Restart, Exec, HTTP and SQL says what.
type Action struct {
	// Name labels the action's events; its kind and argument by default.
	// A window (windows:) names the action it follows by it.
	Name  string    `yaml:"name"`
	At    *Duration `yaml:"at"`
	Every *Duration `yaml:"every"`
	// When is a figure of the running step and a limit, as a threshold
	// check writes them ({figure: requests, ">=": 2000}): the action runs
	// once, at the first tick the figure meets the limit.
	When *FigureCheck `yaml:"when"`
	// Target names the plan target that Signal and Restart act on; the
	// group's own target by default.
	Target  string `yaml:"target"`
	Signal  string `yaml:"signal"`
	Restart bool   `yaml:"restart"`
	// Exec is a command's argv, run without a shell.
	Exec []string    `yaml:"exec"`
	HTTP *ActionHTTP `yaml:"http"`
	// SQL is one statement run on DSN ("embedded": the postgres group's
	// own throwaway cluster).
	SQL string `yaml:"sql"`
	DSN string `yaml:"dsn"`
	// Timeout bounds the action (DefaultActionTimeout when zero): a command
	// still running then is killed, a request or statement cancelled, a
	// signalled target that has not exited is reported as still running.
	Timeout Duration `yaml:"timeout"`
	Pos     Pos      `yaml:"-"`
}

// ActionHTTP is an action's HTTP request.
type ActionHTTP struct {
	Method  string            `yaml:"method"`
	URL     string            `yaml:"url,required"`
	Headers map[string]string `yaml:"headers"`
	Body    string            `yaml:"body"`
	// ExpectStatus are the statuses that count as success (default: any
	// 2xx or 3xx).
	ExpectStatus []int `yaml:"expect_status"`
}

// EmbeddedDSN is the dsn of a sql action that names the postgres group's
// own throwaway cluster.
const EmbeddedDSN = "embedded"

// Action bounds.
const (
	DefaultActionTimeout = 10 * time.Second
	MaxActionTimeout     = 10 * time.Minute
	MinActionEvery       = 100 * time.Millisecond
	MaxActions           = 64
)

// Action kinds, as Kind returns them.
const (
	ActionSignal  = "signal"
	ActionRestart = "restart"
	ActionExec    = "exec"
	ActionHTTPK   = "http"
	ActionSQL     = "sql"
)

// Signals are the signal names an action may send.
var Signals = []string{"HUP", "INT", "KILL", "TERM", "USR1", "USR2"}

// SignalName is the signal a plan names ("KILL", "SIGKILL", "kill") as
// Signals spells it; ok is false for any other name.
func SignalName(name string) (sig string, ok bool) {
	sig = strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(name)), "SIG")
	return sig, slices.Contains(Signals, sig)
}

// Kind is what the action does: ActionSignal, ActionRestart, ActionExec,
// ActionHTTPK or ActionSQL ("" when it names none).
func (a *Action) Kind() string {
	switch {
	case a.Signal != "":
		return ActionSignal
	case a.Restart:
		return ActionRestart
	case len(a.Exec) > 0:
		return ActionExec
	case a.HTTP != nil:
		return ActionHTTPK
	case a.SQL != "":
		return ActionSQL
	}
	return ""
}

// TimeoutD is the action's timeout with its default.
func (a *Action) TimeoutD() time.Duration {
	if a.Timeout.D() > 0 {
		return a.Timeout.D()
	}
	return DefaultActionTimeout
}

// TargetOf is the name of the target a signal or restart acts on.
func (a *Action) TargetOf(g *Group) string {
	if a.Target != "" {
		return a.Target
	}
	return g.Target
}

// Label names the action in events: its name, else its kind and what it
// acts on ("signal KILL to api", "exec sh -c …"), unredacted.
func (a *Action) Label(g *Group) string {
	if a.Name != "" {
		return a.Name
	}
	switch a.Kind() {
	case ActionSignal:
		return fmt.Sprintf("signal %s to %s", strings.ToUpper(a.Signal), a.TargetOf(g))
	case ActionRestart:
		return "restart " + a.TargetOf(g)
	case ActionExec:
		return "exec " + strings.Join(a.Exec, " ")
	case ActionHTTPK:
		return fmt.Sprintf("http %s %s", a.HTTPMethod(), a.HTTP.URL)
	case ActionSQL:
		return "sql " + a.SQL
	}
	return "action"
}

// HTTPMethod is the request's method, GET by default.
func (a *Action) HTTPMethod() string {
	if a.HTTP == nil || a.HTTP.Method == "" {
		return "GET"
	}
	return strings.ToUpper(a.HTTP.Method)
}

// validateActions checks a group's actions: when (exactly one of at and
// every), what (exactly one kind) and what each kind needs.
func (p *Plan) validateActions(g *Group) []error {
	var errs []error
	if len(g.Actions) > MaxActions {
		errs = append(errs, Errorf(g.Pos, "group "+g.ID+": actions", "%d actions: at most %d per group", len(g.Actions), MaxActions))
	}
	for i, a := range g.Actions {
		if a == nil {
			errs = append(errs, Errorf(g.Pos, fmt.Sprintf("group %s: actions[%d]", g.ID, i), "empty action"))
			continue
		}
		key := fmt.Sprintf("group %s: actions[%d]", g.ID, i)
		for _, e := range p.actionProblems(g, a) {
			errs = append(errs, Errorf(a.Pos, key+"."+e[0], "%s", e[1]))
		}
	}
	return errs
}

// actionProblems are an action's problems, each a field and a message.
func (p *Plan) actionProblems(g *Group, a *Action) [][2]string {
	var out [][2]string
	bad := func(field, format string, args ...any) {
		out = append(out, [2]string{field, fmt.Sprintf(format, args...)})
	}
	switch whens := countSet(a.At != nil, a.Every != nil, a.When != nil); {
	case whens != 1:
		bad("at", "give exactly one of at (once, at that offset of the step), every (repeatedly) and when (once, when a figure meets a limit)")
	case a.Every != nil && a.Every.D() < MinActionEvery:
		bad("every", "%s is too often: at least %s", a.Every.D(), MinActionEvery)
	case a.When != nil:
		out = append(out, whenProblems(a.When)...)
	}
	if t := a.Timeout.D(); t > MaxActionTimeout {
		bad("timeout", "%s is longer than %s", t, MaxActionTimeout)
	}
	if p := NameProblem(a.Name); p != "" {
		bad("name", "%s", p)
	}
	if kinds := countSet(a.Signal != "", a.Restart, len(a.Exec) > 0, a.HTTP != nil, a.SQL != ""); kinds != 1 {
		bad("signal", "give exactly one of signal, restart, exec, http, sql (%d are given)", kinds)
		return out
	}
	if a.DSN != "" && a.Kind() != ActionSQL {
		bad("dsn", "only a sql action reads a dsn")
	}
	if a.Target != "" && a.Kind() != ActionSignal && a.Kind() != ActionRestart {
		bad("target", "only signal and restart act on a target")
	}
	return append(out, p.kindProblems(g, a)...)
}

// kindProblems are the problems of what the action does.
func (p *Plan) kindProblems(g *Group, a *Action) [][2]string {
	var out [][2]string
	bad := func(field, format string, args ...any) {
		out = append(out, [2]string{field, fmt.Sprintf(format, args...)})
	}
	switch a.Kind() {
	case ActionSignal, ActionRestart:
		field := a.Kind()
		if _, ok := SignalName(a.Signal); a.Kind() == ActionSignal && !ok {
			bad("signal", "unknown signal %q (known: %s)", a.Signal, strings.Join(Signals, ", "))
		}
		name := a.TargetOf(g)
		t := p.Targets[name]
		switch {
		case name == "":
			bad(field, "the group has no target: give target: NAME")
		case t == nil:
			bad("target", "no target named %q in targets", name)
		case a.Restart && len(t.Command) == 0:
			bad("restart", "target %q is attached (pid, pidfile or cgroup), not spawned: benchtui can only restart a target it started from its command", name)
		case a.Kind() == ActionSignal && t.signalRefusal() != "":
			bad("signal", "target %q: %s: benchtui refuses to signal it", name, t.signalRefusal())
		}
	case ActionHTTPK:
		u, err := url.Parse(a.HTTP.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("http.url", "want an http:// or https:// URL, got %q", RedactURLs(a.HTTP.URL))
		}
	case ActionSQL:
		switch {
		case strings.TrimSpace(a.SQL) == "":
			bad("sql", "want a statement")
		case a.DSN == "":
			bad("dsn", "a sql action needs the dsn of the database (or embedded, in a postgres group with dsn: embedded)")
		case a.DSN == EmbeddedDSN && g.Runner != "postgres":
			bad("dsn", "embedded is the cluster a postgres group starts for itself; this group's runner is %s: give a dsn", g.Runner)
		}
	case ActionExec:
		if strings.TrimSpace(a.Exec[0]) == "" {
			bad("exec", "want a command: exec: [\"sh\", \"-c\", \"…\"]")
		}
	}
	return out
}

// countSet is how many of given are true.
func countSet(given ...bool) int {
	n := 0
	for _, g := range given {
		if g {
			n++
		}
	}
	return n
}

// whenProblems are the problems of an action's condition: those of a
// threshold check, and a figure a running step does not have.
func whenProblems(w *FigureCheck) [][2]string {
	if err := w.problem("when"); err != nil {
		var pe *PosError
		if errors.As(err, &pe) {
			return [][2]string{{pe.Key, pe.Msg}}
		}
		return [][2]string{{"when", err.Error()}}
	}
	fig, err := artifacts.ParseFigure(w.Figure)
	if p := fig.LiveProblem(); err == nil && p != "" {
		return [][2]string{{"when.figure", p}}
	}
	if _, _, err := w.Condition(); err != nil {
		return [][2]string{{"when", err.Error()}}
	}
	return nil
}
