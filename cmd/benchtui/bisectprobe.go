package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/watch"
	"github.com/benchtui/benchtui/ui"
)

// probe is what one revision gave: its artifact, its comparison with the
// good revision on the chosen figure, or why it could not be judged.
type probe struct {
	rev  revision
	art  *artifacts.Artifact
	cmp  compare.Comparison
	skip string // it did not build or run: why
}

// probe checks rev out in a temporary worktree, builds the group's
// targets there and runs the group, runs times each step; the worktree
// is removed after, the artifacts, logs and build output stay in the
// probe's folder. A revision that does not build or run is skipped; an
// error is one that ends the bisection (git, the folder, an interrupt).
// i is rev's place among the revisions bisected, -1 for the good one.
func (b *bisector) probe(ctx context.Context, i int, rev revision, runs int) (probe, error) {
	b.probes++
	if rev.subject == "" {
		if r, err := b.repo.describe(ctx, rev.hash); err == nil {
			rev = r
		}
	}
	fmt.Fprintf(b.stderr, "bisect: probe %d: %s %s: building, then %d runs\n", b.probes, rev.short(), quoteSubject(rev), runs)
	b.feed.send(ui.BisectProbe{Index: i, N: b.probes, Runs: runs, Building: true})
	p := probe{rev: rev}
	dir, err := b.mkdirProbe(rev)
	if err != nil {
		return p, err
	}
	tree, remove, err := b.repo.checkout(ctx, rev)
	if err != nil {
		return p, err
	}
	defer remove()
	pl := b.planIn(tree)
	if err := buildTargets(ctx, pl, b.group, dir); err != nil {
		p.skip = "does not build: " + err.Error()
		return p, ctx.Err()
	}
	b.feed.send(ui.BisectProbe{Index: i, N: b.probes, Runs: runs})
	m := measure{count: runs, duration: b.f.duration, stop: func() {}, snapshot: b.feed.live}
	if p.art, err = measureGroup(ctx, pl, b.group, dir, m, b.stderr); err != nil {
		p.skip = "did not run: " + err.Error()
	}
	return p, ctx.Err()
}

// buildTargets runs the build commands of g's targets in pl, in the
// group's order, their output in dir/build.log.
func buildTargets(ctx context.Context, pl *plan.Plan, g *plan.Group, dir string) error {
	path := filepath.Join(dir, "build.log")
	var log *os.File
	for _, name := range g.Targets {
		spec := pl.Targets[name]
		cmd := spec.BuildCommand(ctx)
		if cmd == nil {
			continue
		}
		if log == nil {
			var err error
			if log, err = os.Create(path); err != nil {
				return fmt.Errorf("keeping the build's output: %w", err)
			}
			defer log.Close()
		}
		build := pl.Redact(fmt.Sprintf("%q", spec.Build))
		fmt.Fprintf(log, "--- build %s: %s in %s\n", name, build, cmd.Dir)
		cmd.Stdout, cmd.Stderr = log, log
		if err := watch.RunTied(cmd); err != nil { // tied to benchtui's life, a cancel kills the whole build
			return fmt.Errorf("target %s: %s: %w (its output: %s)", name, build, err, path)
		}
	}
	return nil
}

// judge compares p with the good revision's runs on the chosen figure.
func (b *bisector) judge(good probe, p *probe) outcome {
	if p.skip != "" {
		return outcomeSkip
	}
	c := compare.Compare([]*artifacts.Artifact{good.art}, []*artifacts.Artifact{p.art}, b.f.opts)
	if b.f.figure != figureAny {
		c = c.Only(b.f.figure)
	}
	c.Warnings = withoutRepeatWarning(c.Warnings, good.art, p.art)
	p.cmp = c
	if c.Worse() {
		return outcomeWorse
	}
	return outcomeSame
}

// quoteSubject is the commit's subject in quotes, its control bytes
// escaped: it goes to the terminal.
func quoteSubject(r revision) string {
	return fmt.Sprintf("%q", r.subject)
}

// withoutRepeatWarning drops compare's "group config differs" from
// warnings when the two runs' configs differ only in their repeat: the
// good revision runs more often on purpose (goodRuns), as bisect says.
func withoutRepeatWarning(warnings []string, good, cur *artifacts.Artifact) []string {
	if !sameButRepeat(good.Group.Config, cur.Group.Config) || !sameButRepeat(good.Group.ConfigAsWritten, cur.Group.ConfigAsWritten) {
		return warnings
	}
	return slices.DeleteFunc(slices.Clone(warnings), func(w string) bool { return w == cur.Group.ID+": group config differs" })
}

// sameButRepeat reports whether two group configs are the same but for
// their repeat.
func sameButRepeat(a, b map[string]any) bool {
	a, b = maps.Clone(a), maps.Clone(b)
	delete(a, "repeat")
	delete(b, "repeat")
	return reflect.DeepEqual(a, b)
}
