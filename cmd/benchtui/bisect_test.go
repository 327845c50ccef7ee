package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// bisectPlan is the test's plan: the server built with go build and run
// from its folder, a closed loop of 4 workers on /work for 1 s a run.
const bisectPlan = `version: 1
targets:
  server:
    command: [./bin/server, --addr, "%[1]s"]
    build: [go, build, -o, bin/server, .]
    ready: http://%[1]s/healthz
groups:
  - id: work
    target: server
    runner: http
    http: {requests: [{url: "http://%[1]s/work"}]}
    load: {concurrency: 4}
    duration: 1s
`

// TestBisectNamesTheSlowCommit: in a repository of 16 commits of a real
// Go server where commit 11 adds 20 ms to /work (and starts a leak),
// bisect from commit 1 (good) to 16 (bad) with --count 3 (runs of 1 s: of 0.5 s,
// a suite at load 23 judged no revision worse) names commit 11
// with its verdict table, in at most 5 probes, the good one included (a
// minimum effect of 20% against the +100% leaves the busy machine's drift
// of the median room);
// commit 6, which does not compile, is skipped if it is probed; every
// probe's artifacts stay; the user's tree, HEAD and worktrees are as
// they were.
func TestBisectNamesTheSlowCommit(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: %v", tool, err)
		}
	}
	addr, err := freeLoopbackAddr("tcp")
	if err != nil {
		t.Fatal(err)
	}
	repo, hashes := bisectRepo(t, 16, 11, 6, fmt.Sprintf(bisectPlan, addr))
	before := repoState(t, repo)
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, benchtuiBinary(t), "bisect", "bench.yaml", "-g", "work",
		"--good", hashes[0], "--bad", hashes[15], "--count", "3", "--threshold", "20%", "-o", out)
	var stdout, stderr bytes.Buffer
	cmd.Dir, cmd.Stdout, cmd.Stderr = repo, &stdout, &stderr
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local")
	err = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != exitOK {
		t.Fatalf("exit %d (%v), stdout:\n%s\nstderr:\n%s", code, err, stdout.String(), stderr.String())
	}
	want := "first worse revision: " + hashes[10] + ` "commit 11"`
	if !strings.Contains(stdout.String(), want) || !regexp.MustCompile(`(?m)^work\s.*\bp50\b.*\bworse\b`).MatchString(stdout.String()) {
		t.Errorf("stdout does not name commit 11 with its p50 row worse; want %q in:\n%s\nstderr:\n%s", want, stdout.String(), stderr.String())
	}
	checkBisectProbes(t, stderr.String(), hashes, out)
	if after := repoState(t, repo); after != before {
		t.Errorf("the user's repository changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// checkBisectProbes: at most 5 probes, each with its folder of
// artifacts; commit 6 skipped as not building whenever it was probed.
func checkBisectProbes(t *testing.T, stderr string, hashes []string, out string) {
	t.Helper()
	starts := regexp.MustCompile(`(?m)^bisect: probe (\d+): ([0-9a-f]{12}) "commit \d+": building`).FindAllStringSubmatch(stderr, -1)
	if len(starts) == 0 || len(starts) > 5 {
		t.Errorf("%d probes, want 1 to 5; stderr:\n%s", len(starts), stderr)
	}
	for _, m := range starts {
		entries, _ := filepath.Glob(filepath.Join(out, "bisect-"+m[2], "*"))
		if len(entries) == 0 {
			t.Errorf("probe %s of %s kept nothing in %s", m[1], m[2], out)
		}
		if m[2] == hashes[5][:12] && !strings.Contains(stderr, hashes[5][:12]+` (5 of 15) "commit 6": skipped: does not build`) {
			t.Errorf("commit 6 was probed but not skipped as not building; stderr:\n%s", stderr)
		}
	}
}

// repoState is what bisect must leave as it was: the status of the
// user's tree, HEAD and the list of worktrees.
func repoState(t *testing.T, repo string) string {
	t.Helper()
	var sb strings.Builder
	for _, args := range [][]string{{"status", "--porcelain", "--ignored"}, {"rev-parse", "HEAD"}, {"worktree", "list", "--porcelain"}} {
		out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
		sb.Write(out)
	}
	return sb.String()
}

// TestBisectRefusesWhatItCannotDo: usage errors, revisions that are not
// an ordered pair, a target outside the repository, a group with nothing
// spawned, a plan outside any repository: exit 2 with the reason, before
// anything is built or run.
func TestBisectRefusesWhatItCannotDo(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skipf("git not found: %v", err)
	}
	outside := t.TempDir()
	repo, hashes := bisectRepo(t, 3, 99, 0, fmt.Sprintf(strings.Replace(bisectPlan, "    build:", "    dir: %[2]s\n    build:", 1), "127.0.0.1:1", "REPO"))
	planPath := filepath.Join(repo, "bench.yaml")
	text, _ := os.ReadFile(planPath)
	writeFile(t, planPath, strings.ReplaceAll(string(text), "REPO", repo))
	outsidePlan := filepath.Join(repo, "outside.yaml")
	writeFile(t, outsidePlan, strings.ReplaceAll(string(text), "REPO", outside))
	pidPlan := filepath.Join(repo, "pid.yaml")
	writeFile(t, pidPlan, "version: 1\ntargets: {db: {pid: 1}}\ngroups:\n  - {id: work, target: db, runner: http, http: {requests: [{url: \"http://127.0.0.1:1/\"}]}, load: {concurrency: 1}, duration: 1s}\n")
	notRepo := filepath.Join(outside, "bench.yaml")
	writeFile(t, notRepo, strings.ReplaceAll(string(text), "REPO", outside))
	good, bad := hashes[0], hashes[2]
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{planPath, "--good", good, "--bad", bad}, "-g names the one group"},
		{[]string{planPath, "-g", "work", "--bad", bad}, "--good and --bad are both required"},
		{[]string{planPath, "-g", "work", "--good", good, "--bad", bad, "--count", "1"}, "at least 2 runs"},
		{[]string{planPath, "-g", "work", "--good", good, "--bad", bad, "--figure", "p98"}, `--figure "p98": want one of`},
		{[]string{planPath, "-g", "nope", "--good", good, "--bad", bad}, `no group "nope"`},
		{[]string{planPath, "-g", "work", "--good", bad, "--bad", good}, "no commits after the good revision"},
		{[]string{planPath, "-g", "work", "--good", "nosuch", "--bad", bad}, `--good: revision "nosuch"`},
		{[]string{planPath, "-g", "work", "--good", "--upload-pack=x", "--bad", bad}, "must not start with -"},
		{[]string{outsidePlan, "-g", "work", "--good", good, "--bad", bad}, "outside the repository"},
		{[]string{pidPlan, "-g", "work", "--good", good, "--bad", bad}, "no target with a command"},
		{[]string{notRepo, "-g", "work", "--good", good, "--bad", bad}, "finding the git repository"},
	} {
		code, stdout, stderr := runCmd(t, cmdBisect, c.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
}
