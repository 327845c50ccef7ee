package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/kube"
	"github.com/benchtui/benchtui/runners/plan"
)

// kubeFlags are the flags of `kube manifest` and `kube run`.
type kubeFlags struct {
	group, image, namespace, runID, startAt, cpu, memory, kubectl, secret, out string
	shards                                                                     int
	startIn, ttl, readyBy, timeout, startTolerance                             time.Duration
}

// kubeFlagSet defines the flags of `kube manifest|run` into f.
func kubeFlagSet(f *kubeFlags) *flag.FlagSet {
	fs := flagSet("kube")
	fs.StringVar(&f.group, "g", "", "the group to run (one id)")
	fs.IntVar(&f.shards, "shards", 0, "how many pods run it")
	fs.StringVar(&f.image, "image", "", "container image whose entrypoint is benchtui")
	fs.StringVar(&f.namespace, "namespace", "default", "namespace of the Job")
	fs.StringVar(&f.runID, "run-id", "", "the run's id (default: from the start time)")
	fs.StringVar(&f.startAt, "start-at", "", "when the shards start (RFC3339 or unix seconds; default now + --start-in)")
	fs.DurationVar(&f.startIn, "start-in", 2*time.Minute, "start this long from now (pods need time to be scheduled and pulled)")
	fs.DurationVar(&f.startTolerance, "start-tolerance", 0, fmt.Sprintf("each shard's run --start-tolerance (default %s)", engine.ShardTolerance))
	fs.StringVar(&f.cpu, "cpu", "1", "each shard's CPU, requested and limited")
	fs.StringVar(&f.memory, "memory", "512Mi", "each shard's memory, requested and limited")
	fs.DurationVar(&f.ttl, "ttl", 24*time.Hour, "how long the finished Job (and its logs) stays")
	fs.StringVar(&f.secret, "secret", "", "the Secret holding the plan's secret variables (*TOKEN*, *PASSWORD*, …), a key each")
	fs.StringVar(&f.kubectl, "kubectl", "kubectl", "kube run: the kubectl to call (the user's kubeconfig)")
	fs.DurationVar(&f.readyBy, "ready-by", 15*time.Second, "kube run: every shard must be ready this long before the start, else the Job is deleted")
	fs.DurationVar(&f.timeout, "timeout", 0, "kube run: how long to wait for the Job to finish (default: its deadline)")
	fs.StringVar(&f.out, "o", "bench-results", "kube run: folder for the merged artifact")
	return fs
}

// cmdKube is `benchtui kube manifest|run PLAN -g ID --shards N --image IMG`.
func cmdKube(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "manifest" && args[0] != "run") {
		fmt.Fprintln(stderr, "benchtui kube: want manifest or run (benchtui help kube)")
		return exitUsage
	}
	verb := args[0]
	var f kubeFlags
	fs := kubeFlagSet(&f)
	fs.SetOutput(stderr)
	pos, err := parseInterspersed(fs, args[1:])
	if err == nil && len(pos) != 1 {
		err = fmt.Errorf("want one PLAN, got %d arguments", len(pos))
	}
	if err != nil {
		fmt.Fprintln(stderr, "benchtui kube:", err)
		return exitUsage
	}
	opts, err := kubeOptions(pos[0], f, time.Now())
	if err != nil {
		fmt.Fprintln(stderr, "benchtui kube:", err)
		return exitUsage
	}
	if verb == "manifest" {
		return printManifest(opts, stdout, stderr)
	}
	return kubeRun(ctx, pos[0], opts, f, stdout, stderr)
}

// kubeOptions reads the plan and the flags into a manifest's options.
func kubeOptions(path string, f kubeFlags, now time.Time) (kube.Options, error) {
	pl, err := plan.LoadPlan(path, kinds)
	if err != nil {
		return kube.Options{}, err
	}
	groups, err := selectGroups(pl, f.group)
	if err != nil || f.group == "" || len(groups) != 1 {
		return kube.Options{}, fmt.Errorf("-g %q: name one group of the plan (%v)", f.group, err)
	}
	g := groups[0]
	if err := engine.CheckShardable(kinds, g, f.shards); err != nil {
		return kube.Options{}, err
	}
	start := now.Add(f.startIn).Truncate(time.Second)
	if f.startAt != "" {
		if start, err = parseStartAt(f.startAt); err != nil {
			return kube.Options{}, err
		}
		if !start.After(now) {
			return kube.Options{}, fmt.Errorf("--start-at %s is past: give a time the pods can still make", f.startAt)
		}
	}
	if f.startTolerance < 0 || f.startTolerance > maxStartTolerance {
		return kube.Options{}, fmt.Errorf("--start-tolerance %s: want a duration from 0 to %s", f.startTolerance, maxStartTolerance)
	}
	runID := f.runID
	if runID == "" {
		runID = "r" + start.UTC().Format("20060102t150405")
	}
	files, err := planFiles(path, g)
	if err != nil {
		return kube.Options{}, err
	}
	env, secret := planEnv(pl)
	return kube.Options{
		Env: env, SecretEnv: secret, Secret: f.secret,
		Group: g.ID, Shards: f.shards, Image: f.image, Namespace: f.namespace, RunID: runID, StartAt: start, StartTolerance: f.startTolerance,
		CPU: f.cpu, Memory: f.memory, Deadline: start.Sub(now) + groupLength(g) + 10*time.Minute, TTL: f.ttl,
		PlanFile: filepath.Base(path), Files: files,
	}, nil
}

// planEnv splits the variables the plan read into those a Job may carry
// (their values here) and those named like secrets.
func planEnv(pl *plan.Plan) (env map[string]string, secret []string) {
	env = map[string]string{}
	for _, name := range pl.EnvNames {
		if plan.SecretName(name) {
			secret = append(secret, name)
			continue
		}
		env[name] = os.Getenv(name)
	}
	return env, secret
}

// planFiles are the files a shard's pod needs: the plan and the group's
// data file, which must sit beside it (a ConfigMap is flat).
func planFiles(path string, g *plan.Group) (map[string]string, error) {
	files := map[string]string{}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	files[filepath.Base(path)] = string(b)
	if g.Data != nil {
		if strings.ContainsAny(g.Data.File, `/\`) {
			return nil, fmt.Errorf("group %s: data file %s: put it beside the plan (a ConfigMap holds no folders)", g.ID, g.Data.File)
		}
		b, err := os.ReadFile(filepath.Join(filepath.Dir(path), g.Data.File))
		if err != nil {
			return nil, err
		}
		files[g.Data.File] = string(b)
	}
	return files, nil
}

// groupLength is how long a shard of g runs at most: its steps' warmups
// and durations (counted steps: their cap), repeats, and the gap the
// shards leave between steps.
func groupLength(g *plan.Group) time.Duration {
	var d time.Duration
	for _, s := range plan.Steps(g, 0) {
		d += s.Warmup + s.Duration + engine.ShardStepGap
	}
	return d * time.Duration(max(1, g.Repeat))
}

// printManifest writes the ConfigMap and the Job.
func printManifest(opts kube.Options, stdout, stderr io.Writer) int {
	cm, job, err := kube.Manifest(opts)
	if err == nil {
		err = kube.Render(stdout, cm, job)
	}
	if err != nil {
		fmt.Fprintln(stderr, "benchtui kube:", err)
		return exitUsage
	}
	return exitOK
}
