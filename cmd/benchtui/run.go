package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
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
}

func parseRunFlags(args []string, stderr io.Writer) (runFlags, error) {
	var f runFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.groups, "g", "", "comma-separated group ids to run (default: all)")
	fs.StringVar(&f.out, "o", "", "artifacts folder (default: the plan's artifacts, else ./bench-results)")
	fs.StringVar(&f.baseline, "baseline", "", "artifact file or folder to judge the run against")
	fs.DurationVar(&f.duration, "duration", 0, "replace every step's duration (for quick tries)")
	fs.IntVar(&f.count, "count", 0, "run every step N times, each run one sample for comparisons (replaces repeat:)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return f, err
	}
	if f.count < 0 || f.count > plan.MaxRepeat {
		return f, fmt.Errorf("--count %d: want 1 to %d", f.count, plan.MaxRepeat)
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
	printWarnings(stderr, remoteWarnings(pl))
	var base []*artifacts.Artifact
	if f.baseline != "" {
		if base, err = artifacts.LoadSet(f.baseline); err != nil {
			fmt.Fprintln(stderr, "benchtui run: baseline:", err)
			return exitUsage
		}
	}
	h := &headless{pl: pl, dir: artifactsDir(f.out, pl), stdout: stdout, stderr: stderr}
	raiseFDLimit(stderr)
	ver, revision := buildInfo()
	run := engine.NewRun(pl, kinds, h.dir, ver)
	run.VCSRevision = revision
	run.Duration, run.Count = f.duration, f.count
	defer run.Close()
	return h.runAll(ctx, run, groups, base)
}

// headless drives sessions for `benchtui run`.
type headless struct {
	pl     *plan.Plan
	dir    string
	stdout io.Writer
	stderr io.Writer
}

func (h *headless) runAll(ctx context.Context, run *engine.Run, groups []*plan.Group, base []*artifacts.Artifact) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	intr := newInterrupter(h, run, cancel)
	defer intr.close()
	code := exitOK
	var results []*artifacts.Artifact
	for _, g := range groups {
		if ctx.Err() != nil {
			return exitFail
		}
		a, err := h.runGroup(ctx, run, g, intr)
		if a != nil {
			results = append(results, a)
			if a.Failed() {
				code = exitFail
			}
		}
		if err != nil {
			fmt.Fprintln(h.stderr, h.pl.Redact(err.Error()))
			code = exitFail
		}
	}
	if ctx.Err() != nil {
		return exitFail
	}
	if base != nil && h.judge(base, results) {
		code = exitFail
	}
	return code
}

// runGroup runs one group and writes its artifact, partial when the
// group was interrupted.
func (h *headless) runGroup(ctx context.Context, run *engine.Run, g *plan.Group, intr *interrupter) (*artifacts.Artifact, error) {
	sess, err := run.Session(ctx, g)
	if err != nil {
		return nil, err
	}
	intr.watch(sess)
	defer intr.watch(nil)
	sess.Start(ctx)
	p := newProgress(h.stderr, g.ID)
	for snap := range sess.Snapshots() {
		p.show(snap)
	}
	a := h.write(sess.Result())
	printSummary(h.stdout, a)
	return a, sess.Err()
}

// interrupter handles SIGINT and SIGTERM for a headless run: the first
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
	signal.Notify(in.sigs, syscall.SIGINT, syscall.SIGTERM)
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
				if s := in.current(); s != nil {
					h.write(s.Result())
				}
				run.Close()
				os.Exit(exitFail)
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

// write stores an artifact, saying where; a failure is reported, and the
// figures are still printed.
func (h *headless) write(a *artifacts.Artifact) *artifacts.Artifact {
	path, err := artifacts.Write(h.dir, a)
	if err != nil {
		fmt.Fprintln(h.stderr, "benchtui:", err)
		return a
	}
	fmt.Fprintf(h.stderr, "%s: artifact %s%s\n", a.Group.ID, path, map[bool]string{true: " (partial)"}[a.Run.Partial])
	return a
}

// judge compares the run with the baseline, prints the table and reports
// whether anything got worse.
func (h *headless) judge(base, cur []*artifacts.Artifact) bool {
	cmp := artifacts.Compare(base, cur, artifacts.CompareOptions{})
	fmt.Fprintln(h.stdout)
	if err := cmp.Render(h.stdout, "text"); err != nil {
		fmt.Fprintln(h.stderr, "benchtui:", err)
	}
	return cmp.Worse()
}
