package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/livemerge"
	"github.com/benchtui/benchtui/runners/orchestrate"
	"github.com/benchtui/benchtui/runners/plan"
)

// runFlags are the options of `benchtui run`.
type runFlags struct {
	plan     string
	groups   string
	out      string
	baseline string
	duration time.Duration
	count    int
	format   string
	// failOnLeak makes a target whose RSS is still rising fail the run.
	failOnLeak bool
	export     exportFlags
	shard      shardFlags
	metrics    metricsFlags
	requests   requestsFlags
}

// runFormats are the values of run --format.
var runFormats = []string{formatText, formatJSON, formatCSV}

// runFlagSet defines the flags of run into f.
func runFlagSet(f *runFlags) *flag.FlagSet {
	fs := flagSet("run")
	fs.StringVar(&f.groups, "g", "", "comma-separated group ids to run (default: all)")
	fs.StringVar(&f.out, "o", "", "artifacts folder (default: the plan's artifacts, else ./bench-results)")
	fs.StringVar(&f.baseline, "baseline", "", "artifact file or folder to judge the run against")
	fs.Var(positiveDuration{&f.duration}, "duration", "replace every step's `duration`, soaks not extended (for quick tries)")
	fs.Var(countFlag{&f.count, plan.MaxRepeat}, "count", "run every step `N` times, each run one sample for comparisons (replaces repeat:)")
	fs.StringVar(&f.format, "format", formatText, "stdout `format`: text (tables), json (one summary document) or csv (a row per step)")
	fs.BoolVar(&f.failOnLeak, "fail-on-leak", false, "exit 1 when a watched target's RSS is still rising (⚠), as a failed check would")
	f.export.register(fs)
	f.shard.register(fs)
	f.metrics.define(fs)
	f.requests.register(fs)
	return fs
}

func parseRunFlags(args []string, stderr io.Writer) (runFlags, error) {
	var f runFlags
	fs := runFlagSet(&f)
	pos, err := parseWithEnv(fs, args, stderr)
	if err != nil {
		return f, err
	}
	if !slices.Contains(runFormats, f.format) {
		return f, fmt.Errorf("unknown --format %q (want text, json or csv)", f.format)
	}
	if err := f.metrics.check(); err != nil {
		return f, err
	}
	if err := f.export.distinct(); err != nil {
		return f, err
	}
	if err := f.requests.check(); err != nil {
		return f, err
	}
	if len(pos) > 1 {
		return f, fmt.Errorf("run takes one PLAN, got %q", pos)
	}
	if len(pos) == 1 {
		f.plan = pos[0]
	}
	return f, nil
}

// parseInterspersed parses flags that may come before or after the
// positional arguments, which it returns.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// artifactsDir is -o, else the plan's artifacts folder, else ./bench-results.
func artifactsDir(flagDir string, pl *plan.Plan) string {
	switch {
	case flagDir != "":
		return flagDir
	case pl.Artifacts != "":
		return pl.Artifacts
	}
	return "bench-results"
}

// selectGroups returns the groups named in ids (comma-separated), in plan
// order, or every group when ids is empty.
func selectGroups(pl *plan.Plan, ids string) ([]*plan.Group, error) {
	if ids == "" {
		return pl.Groups, nil
	}
	want := map[string]bool{}
	for _, id := range strings.Split(ids, ",") {
		want[strings.TrimSpace(id)] = true
	}
	var out []*plan.Group
	for _, g := range pl.Groups {
		if want[g.ID] {
			out = append(out, g)
			delete(want, g.ID)
		}
	}
	for id := range want {
		return nil, fmt.Errorf("-g: no group %q in the plan", id)
	}
	return out, nil
}

// cmdRun runs groups headless: a progress line a second on stderr, a
// summary table per step on stdout, an artifact per group.
func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, err := parseRunFlags(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "benchtui run:", err)
		return exitUsage
	}
	pl, err := loadPlan(f.plan)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	groups, err := selectGroups(pl, f.groups)
	if err != nil {
		fmt.Fprintln(stderr, "benchtui run:", err)
		return exitUsage
	}
	shard, err := f.shard.parse(os.Getenv)
	if err != nil {
		fmt.Fprintln(stderr, "benchtui run:", err)
		return exitUsage
	}
	if code := prepareShard(shard, groups, stderr); code != exitOK {
		return code
	}
	printWarnings(stderr, remoteWarnings(pl))
	var base []*artifacts.Artifact
	if f.baseline != "" {
		if base, err = artifacts.LoadSet(f.baseline); err != nil {
			fmt.Fprintln(stderr, "benchtui run: baseline:", err)
			return exitUsage
		}
	}
	h := newHeadless(pl, artifactsDir(f.out, pl), shardOutput(shard, f.format, newRunOutput(f.format, stdout), stdout, stderr), stderr)
	h.failOnLeak = f.failOnLeak
	h.files = newExportSet(f.export, f.failOnLeak)
	if shard.Active() {
		h.live = livemerge.NewWriter(stderr, shard)
	}
	if err := artifacts.CheckWritable(h.dir); err != nil {
		fmt.Fprintln(stderr, "benchtui run:", err)
		return exitUsage
	}
	if err := f.export.writable(); err != nil {
		fmt.Fprintln(stderr, "benchtui run:", err)
		return exitUsage
	}
	raiseFDLimit(stderr)
	run := newEngineRun(pl, h.dir)
	run.Duration, run.Count, run.Shard = f.duration, f.count, shard
	if shard.Active() {
		run.ID = shard.RunID
	}
	defer run.Close()
	stopMetrics, err := f.metrics.start(run, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "benchtui run:", err)
		return exitUsage
	}
	defer stopMetrics()
	closeRequests, err := f.requests.open(run, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "benchtui run:", plan.Printable(err.Error()))
		return exitUsage
	}
	defer closeRequests()
	return h.runAll(ctx, run, groups, base)
}

// newEngineRun is the engine's run of pl by this binary (its version and
// VCS revision in the artifacts), writing artifacts and logs to dir.
func newEngineRun(pl *plan.Plan, dir string) *engine.Run {
	ver, revision := buildInfo()
	run := engine.NewRun(pl, kinds, dir, ver)
	run.VCSRevision = revision
	return run
}

// headless drives sessions for `benchtui run`.
type headless struct {
	pl     *plan.Plan
	dir    string
	out    runOutput
	stderr io.Writer
	live   *livemerge.Writer // a shard's live lines; nil otherwise
	// snapshot, unless nil, is handed each snapshot of a running group
	// (bisect's live view).
	snapshot func(engine.Snapshot)
	// failOnLeak: a target whose RSS is still rising fails the run.
	failOnLeak bool
	// files are the export files of run (--export-*, --junit); nil
	// without any.
	files *exportSet
	// keep writes each session's artifact once, whoever asks first: the
	// main path or a second interrupt.
	keep *orchestrate.Keeper
}

func newHeadless(pl *plan.Plan, dir string, out runOutput, stderr io.Writer) *headless {
	h := &headless{pl: pl, dir: dir, out: out, stderr: stderr}
	h.keep = orchestrate.New(dir, h.said)
	return h
}

// runAll runs the groups one by one and hands each to the output, then
// judges the run against base (unless interrupted) and ends the output.
func (h *headless) runAll(ctx context.Context, run *engine.Run, groups []*plan.Group, base []*artifacts.Artifact) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	intr := newInterrupter(h, run, cancel)
	defer intr.close()
	code := exitOK
	var results []*artifacts.Artifact
	for _, g := range groups {
		if ctx.Err() != nil {
			break
		}
		res, lost, err := h.runGroup(ctx, run, g, intr)
		if a := res.artifact; a != nil {
			results = append(results, a)
			if a.Failed() || lost || (h.failOnLeak && leaking(a)) {
				code = exitFail
			}
		}
		if err != nil {
			res.err = h.pl.Redact(err.Error())
			fmt.Fprintln(h.stderr, res.err)
			code = max(code, exitFail)
			if errors.Is(err, engine.ErrMissedStart) {
				code = exitMissedStart
			}
		}
		h.out.group(res)
		h.files.group(res)
	}
	var cmp *compare.Comparison
	if ctx.Err() != nil {
		code = max(code, exitFail)
	} else if base != nil {
		c := compare.Compare(base, results, compare.CompareOptions{})
		if cmp = &c; c.Worse() {
			code = max(code, exitFail)
		}
	}
	if err := h.out.end(cmp, code, ctx.Err() != nil); err != nil {
		fmt.Fprintln(h.stderr, "benchtui:", err)
	}
	if err := h.files.end(cmp, code, ctx.Err() != nil); err != nil {
		fmt.Fprintln(h.stderr, "benchtui:", err)
		code = max(code, exitFail)
	}
	return code
}

// runGroup runs one group and writes its artifact, partial when the
// group was interrupted. It returns the artifact and its path, whether
// writing it failed (the figures are lost: the run must not exit 0) and
// the error that ended the session.
func (h *headless) runGroup(ctx context.Context, run *engine.Run, g *plan.Group, intr *interrupter) (groupResult, bool, error) {
	res := groupResult{id: g.ID}
	sess, err := h.keep.Start(ctx, run, g)
	if err != nil {
		return res, false, err
	}
	intr.watch(sess)
	defer intr.watch(nil)
	p := newProgress(h.stderr, g.ID)
	for snap := range sess.Snapshots() {
		p.show(snap)
		h.live.Show(snap)
		if h.snapshot != nil {
			h.snapshot(snap)
		}
	}
	w := h.keep.Final(sess)
	res.artifact, res.path = w.Artifact, w.Path
	return res, w.Err != nil, sess.Err()
}

// interrupter handles SIGINT, SIGTERM and SIGHUP for a headless run: the first
// stops the running session (in-flight work gets its grace period, the
// figures are written, partial) or a target that is still starting; the
// second writes what the running session has at once, stops the targets
// and exits.
type interrupter struct {
	sigs chan os.Signal
	done chan struct{}
	mu   sync.Mutex
	sess *engine.Session
}

func newInterrupter(h *headless, run *engine.Run, cancel context.CancelFunc) *interrupter {
	in := &interrupter{sigs: make(chan os.Signal, 2), done: make(chan struct{})}
	// SIGHUP too: a closed terminal or ssh session must not lose the
	// figures either.
	signal.Notify(in.sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		first := true
		for {
			select {
			case <-in.done:
				return
			case sig := <-in.sigs:
				if first {
					first = false
					fmt.Fprintf(h.stderr, "\nbenchtui: stopping (%s); again to quit at once\n", sig)
					if s := in.current(); s != nil {
						s.Stop("signal " + sig.String())
					}
					cancel()
					continue
				}
				h.exitNow(in.current(), run)
			}
		}
	}()
	return in
}

func (in *interrupter) watch(s *engine.Session) {
	in.mu.Lock()
	in.sess = s
	in.mu.Unlock()
}

func (in *interrupter) current() *engine.Session {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.sess
}

func (in *interrupter) close() {
	signal.Stop(in.sigs)
	close(in.done)
}

// exitNow is the second interrupt: it waits for a write in flight, writes
// what sess (which may be nil) has unless that is done, writes the export
// files with it, stops the targets and exits 1, holding the writer, so no
// other write starts.
func (h *headless) exitNow(sess *engine.Session, run *engine.Run) {
	if held := h.keep.Hold(sess); held.Artifact != nil {
		h.files.group(groupResult{id: held.Artifact.Group.ID, artifact: held.Artifact, path: held.Path})
	}
	if err := h.files.end(nil, exitFail, true); err != nil {
		fmt.Fprintln(h.stderr, "benchtui:", err)
	}
	run.Close()
	exit(exitFail)
}

// said reports an artifact's write on stderr: where it went, the figures
// that were NaN or Inf (written as 0), or the failure (the figures are
// still printed).
func (h *headless) said(s orchestrate.Stored) {
	a := s.Artifact
	if s.Floats != "" {
		fmt.Fprintf(h.stderr, "benchtui: warning: %s: %s\n", a.Group.ID, s.Floats)
	}
	if s.Err != nil {
		fmt.Fprintln(h.stderr, "benchtui:", s.Err)
		return
	}
	fmt.Fprintf(h.stderr, "%s: artifact %s%s\n", a.Group.ID, s.Path, map[bool]string{true: " (partial)"}[a.Run.Partial])
}

// leaking reports whether a's ending suspects a leak or has a target whose
// RSS is still rising.
func leaking(a *artifacts.Artifact) bool {
	e := artifacts.Outcome(a)
	return e.Leak() || len(e.Rising) > 0
}
