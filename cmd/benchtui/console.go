package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/filewatch"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/ui"
)

// exportWait bounds how long leaving the console waits for running
// sessions to stop before their artifacts are written.
const exportWait = 5 * time.Second

// consoleFlags are the options of `benchtui [PLAN]`.
type consoleFlags struct {
	plan     string
	out      string
	duration time.Duration
	metrics  metricsFlags
	// watch are the paths whose changes rebuild and rerun (--watch).
	watch pathList
}

// pathList is a flag that may be given several times, each value one
// path or several separated by commas.
type pathList []string

func (l *pathList) String() string { return strings.Join(*l, ",") }

func (l *pathList) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

// consoleFlagSet defines the flags of the console into f.
func consoleFlagSet(f *consoleFlags) *flag.FlagSet {
	fs := flagSet(consoleName)
	fs.StringVar(&f.out, "o", "", "artifacts folder (default: the plan's artifacts, else ./bench-results)")
	fs.Var(positiveDuration{&f.duration}, "duration", "replace every step's `duration` (for quick tries)")
	fs.Var(&f.watch, "watch", "rebuild the selected group's target and rerun the group when files under `PATH` change (repeatable; W toggles)")
	f.metrics.define(fs)
	return fs
}

func parseConsoleFlags(args []string, stderr io.Writer) (consoleFlags, error) {
	var f consoleFlags
	fs := consoleFlagSet(&f)
	pos, err := parseWithEnv(fs, args, stderr)
	if err != nil {
		return f, err
	}
	if err := f.metrics.check(); err != nil {
		return f, err
	}
	if len(pos) > 1 {
		return f, fmt.Errorf("the console takes one PLAN, got %q", pos)
	}
	if len(pos) == 1 {
		f.plan = pos[0]
	}
	return f, nil
}

// terminal is the file under w when it is a character device (a
// terminal).
func terminal(w io.Writer) (*os.File, bool) {
	f, ok := stdoutFile(w)
	if !ok {
		return nil, false
	}
	fi, err := f.Stat()
	return f, err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// cmdConsole opens the interactive console on PLAN. Logs go to
// <artifacts>/benchtui.log, never to the screen. On every way out — q,
// ctrl+c, SIGTERM, SIGHUP, a panic in the model — the running sessions are
// stopped, what they measured is written (partial when a step was cut)
// and the targets are stopped.
func cmdConsole(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, err := parseConsoleFlags(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "benchtui:", err)
		return exitUsage
	}
	term, ok := terminal(stdout)
	if !ok {
		fmt.Fprintln(stderr, "benchtui: no terminal on stdout; use `benchtui run` for headless runs")
		return exitUsage
	}
	pl, err := loadPlan(f.plan)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	dir := artifactsDir(f.out, pl)
	if err := artifacts.CheckWritable(dir); err != nil {
		fmt.Fprintln(stderr, "benchtui:", err)
		return exitUsage
	}
	logf, err := openConsoleLog(dir)
	if err != nil {
		fmt.Fprintln(stderr, "benchtui:", err)
		return exitUsage
	}
	defer logf.Close()
	log.SetOutput(logf) // a library's log line must not land on the screen
	defer log.SetOutput(stderr)
	raiseFDLimit(logf)
	run := newEngineRun(pl, dir)
	run.Duration = f.duration
	defer run.Close() // stops the targets (the demo server) on every way out
	// The metrics address goes to the log: the screen is the console's.
	stopMetrics, err := f.metrics.start(run, logf)
	if err != nil {
		fmt.Fprintln(stderr, "benchtui:", err)
		return exitUsage
	}
	defer stopMetrics()
	on := consoleOn{eng: run, pl: run.Plan, duration: run.Duration, dir: dir, watchPaths: f.watch}
	if len(f.watch) > 0 {
		w, err := filewatch.New(f.watch, []string{dir}, 0)
		if err != nil {
			fmt.Fprintln(stderr, "benchtui: --watch:", err)
			return exitUsage
		}
		defer w.Stop()
		on.changes = w.C
	}
	return console(ctx, on, remoteWarnings(pl), logf, term, stderr)
}

func openConsoleLog(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating artifacts folder %s: %w", dir, err)
	}
	path := filepath.Join(dir, "benchtui.log")
	logf, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening the log %s: %w", path, err)
	}
	ver, revision := buildInfo()
	fmt.Fprintf(logf, "--- %s benchtui %s %s console\n", time.Now().Format(time.RFC3339), ver, revision)
	return logf, nil
}

// consoleOn is what the console opens on: the plan, what runs its
// groups (the engine, or a distributed run's live view), and where the
// artifacts go.
type consoleOn struct {
	eng      ui.Engine
	pl       *plan.Plan
	duration time.Duration
	dir      string
	// changes are the watched files' bursts (--watch), nil without.
	changes    <-chan filewatch.Change
	watchPaths []string
}

// console runs the program, then exports whatever the sessions measured.
func console(ctx context.Context, on consoleOn, warnings []string, logf, stdout *os.File, stderr io.Writer) (code int) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sessions := ui.NewSessions(on.dir)
	dir := on.dir
	m := ui.New(ui.Config{Plan: on.pl, Engine: on.eng, Dir: dir, Duration: on.duration,
		Sessions: sessions, Log: logf, Context: ctx, Warnings: warnings, Changes: on.changes, WatchPaths: on.watchPaths})
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithOutput(stdout), tea.WithFPS(20))
	signalled := quitOnSignals(p)
	why := "console panic" // until Run returns without one
	defer func() {
		// Bubble Tea restores the terminal after a panic in the model and
		// returns an error; anything that escapes it lands here. Either way
		// the artifacts are written before leaving.
		r := recover()
		if sig := signalled(); sig != "" && why == "quit" {
			why = sig // the artifacts say the terminal hung up, not "quit"
		}
		paths, errs := sessions.Shutdown(why, exportWait)
		report(stderr, logf, paths, errs)
		summary(stdout, logf, summaryLines(sessions.Summary(summaryWidth-2), m.Cancelled()))
		if (len(errs) > 0 || sessions.Failed()) && code == exitOK {
			code = exitFail // figures were lost, or a check failed (as run exits): not a success
		}
		if r != nil {
			fmt.Fprintf(stderr, "benchtui: panic: %v\n", r)
			fmt.Fprintf(logf, "panic: %v\n", r)
			code = exitUsage
		}
	}()
	_, err := p.Run()
	if !errors.Is(err, tea.ErrProgramPanic) {
		why = "quit"
	}
	if err != nil && !errors.Is(err, tea.ErrInterrupted) {
		fmt.Fprintln(stderr, "benchtui:", err)
		fmt.Fprintln(logf, "console:", err)
		return exitUsage
	}
	return exitOK
}

// quitOnSignals quits the program on SIGHUP (the terminal went away) and
// SIGTERM, so the artifacts are still written. Its stop, once the program
// has ended, says which signal came ("signal hangup", as run says it), or
// "" when none did, for the stopped event of the runs it cut.
func quitOnSignals(p *tea.Program) (stop func() string) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGHUP, syscall.SIGTERM)
	done, exited := make(chan struct{}), make(chan struct{})
	var got os.Signal
	go func() {
		defer close(exited)
		select {
		case got = <-sig:
			p.Quit()
		case <-done:
		}
	}()
	return func() string {
		signal.Stop(sig)
		close(done)
		<-exited
		if got == nil {
			select { // Bubble Tea quit on SIGTERM before the goroutine read it
			case got = <-sig:
			default:
			}
		}
		if got == nil {
			return ""
		}
		return "signal " + got.String()
	}
}

// report logs the artifacts written on the way out and tells of those
// that could not be (the summary lists every artifact).
func report(stderr, logf io.Writer, paths []string, errs []error) {
	for _, p := range paths {
		fmt.Fprintln(logf, "artifact written on exit:", p)
	}
	for _, err := range errs {
		fmt.Fprintln(stderr, "benchtui:", err)
		fmt.Fprintln(logf, "export on exit:", err)
	}
}

// summaryWidth is the width the summary keeps to: it must not wrap on an
// 80-column terminal.
const summaryWidth = 80

// summary prints, once the terminal is restored, what the console ran.
func summary(stdout, logf io.Writer, lines []string) {
	for _, w := range []io.Writer{stdout, logf} {
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
	}
}

// summaryLines are what the console ran, each group with how it ended
// and its artifact (runs, an entry of one or two lines each, indented),
// then the queued groups the quit cancelled; nil when nothing ran or
// waited.
func summaryLines(runs, cancelled []string) []string {
	if len(runs)+len(cancelled) == 0 {
		return nil
	}
	out := []string{fmt.Sprintf("benchtui: %d run%s", len(runs), map[bool]string{true: "s"}[len(runs) != 1])}
	for _, r := range runs {
		for _, l := range strings.Split(r, "\n") {
			out = append(out, "  "+l)
		}
	}
	if len(cancelled) > 0 {
		out = append(out, wrapList("  not run, queued when the console quit: ", cancelled, summaryWidth)...)
	}
	return out
}

// wrapList writes lead and the items, comma-separated, in lines of at
// most width columns (an item longer than a line keeps its own); the
// lines after the first are indented by four.
func wrapList(lead string, items []string, width int) []string {
	var out []string
	cur := lead
	for i, it := range items {
		if i < len(items)-1 {
			it += ","
		}
		switch {
		case i == 0:
			cur += it
		case utf8.RuneCountInString(cur)+1+len(it) <= width:
			cur += " " + it
		default:
			out, cur = append(out, cur), "    "+it
		}
	}
	return append(out, cur)
}
