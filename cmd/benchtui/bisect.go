package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/runners/plan"
)

// bisectFlags are the options of `benchtui bisect`.
type bisectFlags struct {
	plan, group, good, bad, out, figure string
	count                               int
	duration                            time.Duration
	console                             bool
	opts                                compare.CompareOptions
}

// Defaults of bisect: 5 runs a side give the U-test a p as low as 0.008;
// the median latency is the figure a busy machine moves least (a p99 of
// 1,000s of requests rests on a few dozen, which a stall of the machine
// can move by more than a regression: name it to chase a tail).
const (
	defaultBisectCount  = 5
	defaultBisectFigure = compare.MetricP50
	// figureAny judges a revision worse on any row, as compare's exit code.
	figureAny = "any"
)

func bisectFlagSet(f *bisectFlags) *flag.FlagSet {
	fs := flagSet("bisect")
	fs.StringVar(&f.group, "g", "", "the group `ID` run at each revision (required)")
	fs.StringVar(&f.good, "good", "", "a `REV`ision that is good: the base every probe is judged against (required)")
	fs.StringVar(&f.bad, "bad", "", "a later `REV`ision that is bad (required)")
	fs.StringVar(&f.out, "o", "", "artifacts `DIR`, each probe's in bisect-HASH/ in it (default: the plan's artifacts, else ./bench-results)")
	fs.Var(countFlag{&f.count, plan.MaxRepeat}, "count",
		"run every step `N` times at each revision, each run one sample (at least 2; default 5)")
	fs.StringVar(&f.figure, "figure", defaultBisectFigure, "the `metric` that judges a revision worse: "+
		strings.Join(compare.MetricNames(), ", ")+", or any (any row, as compare's exit code)")
	fs.Var(positiveDuration{&f.duration}, "duration", "replace every step's `duration` (for quick tries)")
	fs.Var(&thresholdFlag{opts: &f.opts}, "threshold", "minimum effect for a verdict, as compare's: `5%` or METRIC=10% (repeatable)")
	fs.BoolVar(&f.console, "console", false, "show the bisection live, full screen (stdout must be a terminal); the result is printed after")
	return fs
}

func parseBisectFlags(args []string, stderr io.Writer) (bisectFlags, error) {
	var f bisectFlags
	fs := bisectFlagSet(&f)
	pos, err := parseWithEnv(fs, args, stderr)
	if err != nil {
		return f, err
	}
	if len(pos) != 1 {
		return f, fmt.Errorf("want one PLAN, got %d arguments", len(pos))
	}
	f.plan = pos[0]
	return f, f.check()
}

// check refuses what bisect cannot do: a missing -g, --good or --bad, a
// single run a revision (whose samples would be blocks, unlike the runs
// of the others), an unknown figure.
func (f *bisectFlags) check() error {
	switch {
	case f.group == "" || strings.Contains(f.group, ","):
		return errors.New("-g names the one group to run")
	case f.good == "" || f.bad == "":
		return errors.New("--good and --bad are both required")
	case f.count == 1:
		return errors.New("--count: want at least 2 runs a revision (each run is one sample of the comparison)")
	case f.figure != figureAny && !slices.Contains(compare.MetricNames(), f.figure):
		return fmt.Errorf("--figure %q: want one of %s, or any", f.figure, strings.Join(compare.MetricNames(), ", "))
	}
	if f.count == 0 {
		f.count = defaultBisectCount
	}
	return nil
}

// cmdBisect finds the first revision between --good and --bad whose group
// G is judged worse than --good's: a binary search, each probe a git
// worktree of the revision in a temporary folder, its targets' build
// there, N runs of the group and compare's statistics against the good
// revision's runs. It exits 0 having named that revision, 1 when none
// was judged worse or skipped revisions leave the first one open (or on
// an interrupt), 2 on a usage error, a git error, or a good revision
// that cannot be built or run. With --console the bisection is shown
// live, full screen, and its result printed once the view has closed.
func cmdBisect(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, err := parseBisectFlags(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "benchtui bisect:", err)
		return exitUsage
	}
	term, isTerm := terminal(stdout)
	if f.console && !isTerm {
		fmt.Fprintln(stderr, "benchtui bisect: --console needs a terminal on stdout; without it, bisect shows its progress on stderr")
		return exitUsage
	}
	// Caught for the whole bisection, so that an interrupt during a build
	// still removes the worktree; the runs have their own handler too.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	b, err := newBisector(ctx, f, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "benchtui bisect:", err)
		return exitUsage
	}
	if f.console {
		return b.runConsole(ctx, term, stdout, stderr)
	}
	return b.run(ctx, stdout)
}
