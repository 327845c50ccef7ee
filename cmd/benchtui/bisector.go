package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/runners/plan"
)

// bisector runs one bisection: the plan as the user's file has it, the
// group's spawned targets moved into each revision's checkout.
type bisector struct {
	f     bisectFlags
	pl    *plan.Plan
	group *plan.Group
	repo  *gitRepo
	// folders are the group's spawned targets' folders, relative to the
	// repository's top: where each runs in a revision's checkout.
	folders   map[string]string
	out       string
	good, bad revision
	revs      []revision // after good up to bad, oldest first
	// stderr takes the progress lines, errs the lines that say why the
	// bisection ended without a verdict: both stderr, but with --console
	// the log, errs kept for stderr once the view has closed.
	stderr, errs io.Writer
	// feed is the live view's (--console), nil without it.
	feed       *bisectFeed
	probes     int
	goodCounts int // runs of the good revision
}

// newBisector reads the plan, finds its repository and the revisions
// between --good and --bad, and checks that each of the group's spawned
// targets runs inside the repository.
func newBisector(ctx context.Context, f bisectFlags, stderr io.Writer) (*bisector, error) {
	pl, err := plan.LoadPlan(f.plan, kinds)
	if err != nil {
		return nil, err
	}
	groups, err := selectGroups(pl, f.group)
	if err != nil {
		return nil, err
	}
	planDir, err := filepath.Abs(filepath.Dir(f.plan))
	if err != nil {
		return nil, fmt.Errorf("finding the plan's folder: %w", err)
	}
	b := &bisector{f: f, pl: pl, group: groups[0], out: artifactsDir(f.out, pl), stderr: stderr, errs: stderr}
	if b.repo, err = openRepo(ctx, planDir); err != nil {
		return nil, err
	}
	if b.folders, err = targetFolders(pl, b.group, b.repo.top); err != nil {
		return nil, err
	}
	if err := b.findRevisions(ctx); err != nil {
		return nil, err
	}
	b.goodCounts = goodRuns(f.count, compare.DefaultAlpha)
	return b, artifacts.CheckWritable(b.out)
}

// findRevisions resolves --good and --bad and lists the revisions after
// good up to bad.
func (b *bisector) findRevisions(ctx context.Context) error {
	var err error
	if b.good, err = b.repo.resolve(ctx, b.f.good); err != nil {
		return fmt.Errorf("--good: %w", err)
	}
	if b.bad, err = b.repo.resolve(ctx, b.f.bad); err != nil {
		return fmt.Errorf("--bad: %w", err)
	}
	b.revs, err = b.repo.between(ctx, b.good, b.bad)
	if err == nil {
		b.revs[len(b.revs)-1] = b.bad
	}
	return err
}

// targetFolders are the folders the group's spawned targets (command:)
// build and run in, relative to the repository's top folder top: each
// target's dir:, else the current folder. A folder outside the repository
// is an error: the revision's code is not there. A group without a
// spawned target has nothing that changes with the revision.
func targetFolders(pl *plan.Plan, g *plan.Group, top string) (map[string]string, error) {
	folders := map[string]string{}
	for _, name := range g.Targets {
		spec := pl.Targets[name]
		if len(spec.Command) == 0 {
			continue
		}
		dir, err := filepath.Abs(spec.Dir)
		if err != nil {
			return nil, fmt.Errorf("target %s: finding its folder: %w", name, err)
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		rel, err := filepath.Rel(top, dir)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("target %s runs in %s, outside the repository %s: bisect builds and runs it in each revision's checkout", name, dir, top)
		}
		folders[name] = rel
	}
	if len(folders) == 0 {
		return nil, fmt.Errorf("group %s has no target with a command: nothing of it changes with the revision", g.ID)
	}
	return folders, nil
}

// planIn is the plan with the group's spawned targets moved into tree, a
// revision's checkout: each builds and runs in the same folder of it as
// in the user's tree. The rest of the plan is the user's file as read.
func (b *bisector) planIn(tree string) *plan.Plan {
	pl := *b.pl
	pl.Targets = make(map[string]*plan.TargetSpec, len(b.pl.Targets))
	for name, spec := range b.pl.Targets {
		moved := *spec
		if rel, ok := b.folders[name]; ok {
			moved.Dir = filepath.Join(tree, rel)
		}
		pl.Targets[name] = &moved
	}
	return &pl
}

// goodRuns is how many runs the good revision gets against count runs of
// each other: count, or the fewest more with which the U-test can reach
// p < alpha at all (3 runs against 3 never can: their smallest p is 0.1;
// against 5 it is 0.036). The good revision is the base of every probe,
// so a few more runs of it pay for themselves.
func goodRuns(count int, alpha float64) int {
	for m := count; m < plan.MaxRepeat; m++ {
		if 2/binomial(count+m, count) < alpha {
			return m
		}
	}
	return plan.MaxRepeat
}

// binomial is n choose k.
func binomial(n, k int) float64 {
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return c
}

// probeDir is where a revision's artifacts, logs and build output stay.
func (b *bisector) probeDir(rev revision) string {
	return filepath.Join(b.out, "bisect-"+rev.short())
}

// mkdirProbe makes the probe's folder.
func (b *bisector) mkdirProbe(rev revision) (string, error) {
	dir := b.probeDir(rev)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("making the probe's folder: %w", err)
	}
	return dir, nil
}
