package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/kube"
	"github.com/benchtui/benchtui/runners/watch"
)

// kubectl calls the user's kubectl, bounded in time and output.
type kubectl struct {
	path string
	ns   string
}

// kubectlTimeout bounds one kubectl call.
const kubectlTimeout = 30 * time.Second

// maxKubectlOutput bounds what one call may print (logs of every shard
// included: each frame is at most an artifact).
const maxKubectlOutput = 512 << 20

// run calls kubectl with args (and -n NS), stdin from in, and returns its
// stdout; a failure carries its stderr.
func (k kubectl) run(ctx context.Context, in io.Reader, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, kubectlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, k.path, append([]string{"-n", k.ns}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, &limitedBuffer{b: &out, n: maxKubectlOutput}, &limitedBuffer{b: &errOut, n: 64 << 10}
	if err := watch.RunTied(cmd); err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", k.path, strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
	}
	return out.Bytes(), nil
}

// job reads the Job's status.
func (k kubectl) job(ctx context.Context, name string) (*kube.JobState, error) {
	b, err := k.run(ctx, nil, "get", "job", name, "-o", "json")
	if err != nil {
		return nil, err
	}
	var j kube.JobState
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("kubectl get job %s: %w", name, err)
	}
	return &j, nil
}

// logs saves every pod's log of the Job, each line behind its pod's
// name, to a file in dir and returns its path. Nothing printed is an
// error naming the Job: a real kubectl exits 0 with an empty stdout when
// no pod has the label (a wrong name, or the Job's ttl passed) and when
// the pods have not run (not scheduled, no kubelet).
func (k kubectl) logs(ctx context.Context, job, dir string) (string, error) {
	b, err := k.run(ctx, nil, "logs", "-l", "job-name="+job, "--prefix", "--tail=-1", "--max-log-requests=1000")
	if err != nil {
		return "", err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return "", fmt.Errorf("k8s:%s/%s: kubectl logs -l job-name=%s printed nothing: no pod of that Job in namespace %s (a wrong name, or its ttl passed), or none has run", k.ns, job, job, k.ns)
	}
	if as, err := artifacts.ReadFramed(bytes.NewReader(b), job); err == nil && len(as) == 0 {
		return "", fmt.Errorf("k8s:%s/%s: the logs of %s hold no framed artifact: no shard ended its group there (a shard killed or stopped early frames nothing, and when the Job controller fails a Job it deletes the pods still running, their logs with them)", k.ns, job, logPods(b))
	}
	path := filepath.Join(dir, job+".log")
	return path, os.WriteFile(path, b, 0o644)
}

// logPods names the pods whose lines a `kubectl logs --prefix` output
// holds ("pod/NAME" from each "[pod/NAME/CONTAINER] "), in order, or "the
// Job's pods" when no line has a prefix.
func logPods(b []byte) string {
	var pods []string
	seen := map[string]bool{}
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		rest, ok := bytes.CutPrefix(line, []byte("[pod/"))
		if !ok {
			continue
		}
		name, _, ok := bytes.Cut(rest, []byte("/"))
		if n := "pod/" + string(name); ok && !seen[n] {
			seen[n] = true
			pods = append(pods, n)
		}
	}
	if len(pods) == 0 {
		return "the Job's pods"
	}
	return strings.Join(pods, ", ")
}

// kubeRun applies the manifest, waits until every shard is ready (else
// deletes the Job before any load is sent), then until the Job ends, and
// merges the shards' artifacts from the pods' logs: its exit code is the
// merged run's verdict.
func kubeRun(ctx context.Context, planPath string, opts kube.Options, f kubeFlags, stdout, stderr io.Writer) int {
	cm, job, err := kube.Manifest(opts)
	var manifest bytes.Buffer
	if err == nil {
		err = kube.Render(&manifest, cm, job)
	}
	if err != nil {
		fmt.Fprintln(stderr, "benchtui kube:", err)
		return exitUsage
	}
	k := kubectl{path: f.kubectl, ns: opts.Namespace}
	if _, err := k.run(ctx, &manifest, "apply", "-f", "-"); err != nil {
		fmt.Fprintln(stderr, "benchtui kube run:", err)
		return exitFail
	}
	name := opts.Name()
	ref := "k8s:" + opts.Namespace + "/" + name
	fmt.Fprintf(stderr, "job %s/%s: %d shards start at %s\nlive: benchtui watch %s --console %s\n",
		opts.Namespace, name, opts.Shards, opts.StartAt.UTC().Format(time.RFC3339), ref, planPath)
	if err := awaitReady(ctx, k, name, opts, f.readyBy); err != nil {
		fmt.Fprintln(stderr, "benchtui kube run:", err)
		if _, derr := k.run(context.WithoutCancel(ctx), nil, "delete", "job,configmap", name, "--ignore-not-found"); derr != nil {
			fmt.Fprintln(stderr, "benchtui kube run: deleting the Job:", derr)
		}
		return exitFail
	}
	timeout := f.timeout
	if timeout <= 0 {
		timeout = opts.Deadline
	}
	if code := awaitFinished(ctx, k, name, opts.Shards, time.Now().Add(timeout), stderr); code != exitOK {
		fmt.Fprintf(stderr, "what the shards measured: benchtui merge %s --allow-partial -o %s\n", ref, f.out)
		return code
	}
	// The pods' logs hold every shard's artifact: merged now, before the
	// Job's TTL removes them, into one artifact judged as one run.
	return mergeRun(ctx, []string{ref}, mergeFlags{out: f.out, kubectl: f.kubectl, plan: planPath}, stdout, stderr)
}

// kubePoll is how often kube run reads the Job's status.
var kubePoll = 2 * time.Second

// awaitReady waits until every shard is ready; it fails when they are not
// by readyBy before the start, and at once when the Job ended first: a
// shard that exits before it is ready (3: its clock says the start has
// passed; 2: its plan or environment is wrong) fails the Job, whose
// controller deletes the other pods, so no shard would ever be ready.
func awaitReady(ctx context.Context, k kubectl, name string, opts kube.Options, readyBy time.Duration) error {
	cutoff := opts.StartAt.Add(-readyBy)
	for {
		j, err := k.job(ctx, name)
		if err != nil {
			return err
		}
		if cond, ok := jobEnded(j); ok {
			return fmt.Errorf("job %s: %s before the start (%d of %d shards succeeded)%s: the Job is deleted", name, cond.Type, j.Status.Succeeded, opts.Shards, conditionWhy(cond))
		}
		ready := int32Of(j.Status.Ready)
		if int(ready) >= opts.Shards {
			return nil
		}
		if time.Now().After(cutoff) {
			return fmt.Errorf("%d of %d shards ready %s before the start: the Job is deleted before any load is sent", ready, opts.Shards, readyBy)
		}
		if !runners.SleepUntil(ctx, time.Now().Add(kubePoll)) {
			return ctx.Err()
		}
	}
}

// awaitFinished waits for the Job to succeed (exit 0) or fail (exit 1),
// until deadline.
func awaitFinished(ctx context.Context, k kubectl, name string, shards int, deadline time.Time, stderr io.Writer) int {
	for time.Now().Before(deadline) {
		j, err := k.job(ctx, name)
		if err != nil {
			fmt.Fprintln(stderr, "benchtui kube run:", err)
			return exitFail
		}
		if cond, ok := jobEnded(j); ok {
			fmt.Fprintf(stderr, "job %s: %s (%d of %d shards succeeded)%s\n", name, cond.Type, j.Status.Succeeded, shards, conditionWhy(cond))
			if cond.Type == kube.JobComplete {
				return exitOK
			}
			return exitFail
		}
		if !runners.SleepUntil(ctx, time.Now().Add(kubePoll)) {
			return exitFail
		}
	}
	fmt.Fprintf(stderr, "benchtui kube run: job %s still running at the timeout\n", name)
	return exitFail
}

// jobEnded is the Job's Complete or Failed condition, when one is true.
func jobEnded(j *kube.JobState) (kube.JobCondition, bool) {
	for _, c := range j.Status.Conditions {
		if (c.Type == kube.JobComplete || c.Type == kube.JobFailed) && c.Status == "True" {
			return c, true
		}
	}
	return kube.JobCondition{}, false
}

// conditionWhy is a failed Job's reason and message as the Job
// controller wrote them (": PodFailurePolicy: Container shard for pod …
// failed with exit code 3 …", the shard that missed its start), or "".
func conditionWhy(c kube.JobCondition) string {
	if c.Type != kube.JobFailed || (c.Reason == "" && c.Message == "") {
		return ""
	}
	return ": " + strings.Trim(c.Reason+": "+c.Message, ": ")
}

func int32Of(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// limitedBuffer keeps the first n bytes written to it and drops the rest.
type limitedBuffer struct {
	b *bytes.Buffer
	n int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
