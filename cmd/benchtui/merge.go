package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/merge"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/plan"
)

// cmdMerge joins the artifacts of a distributed run's shards into one per
// group, judges its thresholds again on the merged figures, and exits 1
// when a check fails, 2 when the inputs cannot be merged.
func cmdMerge(_ context.Context, args []string, stdout, stderr io.Writer) int {
	var f mergeFlags
	fs := mergeFlagSet(&f)
	fs.SetOutput(stderr)
	paths, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	if len(paths) == 0 {
		fmt.Fprintln(stderr, "benchtui merge: want IN... (shard artifact files or folders)")
		return exitUsage
	}
	return mergeRun(context.Background(), paths, f, stdout, stderr)
}

// mergeRun merges the shards found in paths (files, folders, logs and
// k8s:NS/JOB) into one artifact per group in f.out, printing each one's
// summary, and returns merge's exit code.
func mergeRun(ctx context.Context, paths []string, f mergeFlags, stdout, stderr io.Writer) int {
	paths, cleanup, err := fetchK8sLogs(ctx, paths, f.kubectl)
	defer cleanup()
	if err != nil {
		complain(stderr, "benchtui merge", err)
		return exitUsage
	}
	files, err := artifacts.LoadShardFiles(paths...)
	if err != nil {
		complain(stderr, "benchtui merge", err)
		return exitUsage
	}
	pl, err := loadMergePlan(f.plan)
	if err != nil {
		complain(stderr, "benchtui merge", err)
		return exitUsage
	}
	code := exitOK
	merged := map[string][]artifacts.Step{}
	groups := func(id string) ([]artifacts.Step, bool) { steps, ok := merged[id]; return steps, ok }
	for _, group := range referredFirst(byGroup(files)) {
		a, err := mergeGroup(group, f.partial, groups)
		if err == nil {
			err = verifyMerged(ctx, kinds, pl, a)
		}
		if err != nil {
			complain(stderr, "benchtui merge", err)
			return exitUsage
		}
		merged[a.Group.ID] = a.Steps
		path, err := artifacts.Write(f.out, a)
		if err != nil {
			complain(stderr, "benchtui merge", err)
			return exitFail
		}
		fmt.Fprintf(stderr, "%s: merged artifact %s\n", a.Group.ID, path)
		printSummary(stdout, a, f.out)
		if a.Failed() {
			code = exitFail
		}
	}
	return code
}

// mergeFlags are merge's flags.
type mergeFlags struct {
	out, kubectl, plan string
	partial            bool
}

// mergeFlagSet defines the flags of merge into f.
func mergeFlagSet(f *mergeFlags) *flag.FlagSet {
	fs := flagSet("merge")
	fs.StringVar(&f.out, "o", "bench-results", "folder for the merged artifacts")
	fs.BoolVar(&f.partial, "allow-partial", false, "merge even when shards are missing; the result is marked partial")
	fs.StringVar(&f.kubectl, "kubectl", "kubectl", "the kubectl that reads k8s:NS/JOB inputs")
	fs.StringVar(&f.plan, "plan", "", "the plan the shards ran: its verify checks run once, on the merged counts")
	return fs
}

// mergeGroup merges one group's shards, judging the merged steps against
// the thresholds the shards ran with (their group.config); groups are the
// run's groups merged before it, which its checks may refer to.
func mergeGroup(files []artifacts.ShardFile, allowPartial bool, groups func(string) ([]artifacts.Step, bool)) (*artifacts.Artifact, error) {
	th, err := plan.DecodeThresholds(files[0].Path, files[0].A.Group.Config["thresholds"])
	if err != nil {
		return nil, err
	}
	judge := func(s *artifacts.Step, earlier []artifacts.Step) []artifacts.Check {
		return engine.ThresholdChecks(th, s, engine.CheckContext{Earlier: earlier, Groups: groups})
	}
	return merge.Merge(files, merge.Options{AllowPartial: allowPartial, Judge: judge})
}

// referredFirst orders the groups so that each comes after the groups its
// checks refer to (a plan's groups refer only to groups before them),
// else keeps their order.
func referredFirst(groups [][]artifacts.ShardFile) [][]artifacts.ShardFile {
	refs := make([][]string, len(groups))
	for i, g := range groups {
		th, _ := plan.DecodeThresholds(g[0].Path, g[0].A.Group.Config["thresholds"]) // an error is mergeGroup's to report
		refs[i] = th.ReferredGroups()
	}
	placed := map[string]bool{}
	out := make([][]artifacts.ShardFile, 0, len(groups))
	left := slices.Clone(groups)
	leftRefs := slices.Clone(refs)
	for len(left) > 0 {
		next := 0 // a cycle, which a plan cannot hold: the first left
		for i := range left {
			if !slices.ContainsFunc(leftRefs[i], func(id string) bool { return holds(left, id) }) {
				next = i
				break
			}
		}
		out = append(out, left[next])
		placed[left[next][0].A.Group.ID] = true
		left, leftRefs = slices.Delete(left, next, next+1), slices.Delete(leftRefs, next, next+1)
	}
	return out
}

// holds reports whether one of groups is group id.
func holds(groups [][]artifacts.ShardFile, id string) bool {
	return slices.ContainsFunc(groups, func(g []artifacts.ShardFile) bool { return g[0].A.Group.ID == id })
}

// byGroup splits the inputs by group, in the order groups first appear.
func byGroup(files []artifacts.ShardFile) [][]artifacts.ShardFile {
	var order []string
	by := map[string][]artifacts.ShardFile{}
	for _, f := range files {
		id := f.A.Group.ID
		if _, ok := by[id]; !ok {
			order = append(order, id)
		}
		by[id] = append(by[id], f)
	}
	out := make([][]artifacts.ShardFile, len(order))
	for i, id := range order {
		out[i] = by[id]
	}
	return out
}

// fetchK8sLogs replaces each k8s:NS/JOB input by a file holding the logs
// of every pod of the Job (where each shard framed its artifacts); cleanup
// removes the files.
func fetchK8sLogs(ctx context.Context, paths []string, kubectlPath string) (out []string, cleanup func(), err error) {
	var dir string
	cleanup = func() {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	for _, p := range paths {
		ref, ok := strings.CutPrefix(p, "k8s:")
		if !ok {
			out = append(out, p)
			continue
		}
		ns, job, ok := strings.Cut(ref, "/")
		if !ok || ns == "" || job == "" || strings.ContainsAny(job, "/ ") {
			return nil, cleanup, fmt.Errorf("%s: want k8s:NAMESPACE/JOB", p)
		}
		if dir == "" {
			if dir, err = os.MkdirTemp("", "benchtui-merge-"); err != nil {
				return nil, cleanup, err
			}
		}
		path, err := kubectl{path: kubectlPath, ns: ns}.logs(ctx, job, dir)
		if err != nil {
			return nil, cleanup, err
		}
		out = append(out, path)
	}
	return out, cleanup, nil
}
