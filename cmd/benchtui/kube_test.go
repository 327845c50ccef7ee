package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"

	"github.com/benchtui/benchtui/runners/kube"
)

// standInKubectl writes a script that answers the kubectl calls benchtui
// makes, since no cluster runs here: apply saves the manifest, get job
// prints a Job whose status.ready is 0 on the first read and then ready
// (and Complete from the third read when complete is set), delete records
// its arguments, logs prints logFile with each line behind kubectl's
// --prefix. Every call is appended to calls.
func standInKubectl(t *testing.T, ready int, complete bool, logFile string) (path, state string) {
	t.Helper()
	state = t.TempDir()
	cond := ""
	if complete {
		cond = `,"conditions":[{"type":"Complete","status":"True"}]`
	}
	script := fmt.Sprintf(`#!/bin/sh
s=%[1]q
echo "$*" >>"$s/calls"
shift 2
case "$1" in
apply) cat >"$s/applied.yaml" ;;
get)
  n=$(($(cat "$s/reads" 2>/dev/null || echo 0) + 1)); echo $n >"$s/reads"
  r=0; [ $n -ge 2 ] && r=%[2]d
  c=""; [ $n -ge 3 ] && c=%[3]q
  printf '{"apiVersion":"batch/v1","kind":"Job","status":{"ready":%%d,"succeeded":%%d%%s}}' $r $r "$c" ;;
delete) echo "$*" >"$s/deleted" ;;
logs) sed 's|^|[pod/job-0-abc/shard] |' %[4]q ;;
*) echo "unexpected: $*" >&2; exit 1 ;;
esac
`, state, ready, cond, logFile)
	path = filepath.Join(state, "kubectl")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, state
}

func kubePlan(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	plan := `version: 1
groups:
  - id: g1
    runner: http
    data: {file: rows.csv}
    http: {requests: [{url: "http://${KUBE_TEST_HOST}/x/{{.id}}", headers: {Authorization: "Bearer ${KUBE_TEST_TOKEN}"}}]}
    load: {rate: 100, max_in_flight: 10}
    duration: 2s
`
	for name, body := range map[string]string{"plan.yaml": plan, "rows.csv": "id\n1\n2\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("KUBE_TEST_HOST", "10.0.0.7:8080")
	t.Setenv("KUBE_TEST_TOKEN", "s3cret")
	return filepath.Join(dir, "plan.yaml")
}

// TestKubeManifest: the plan, its data file and its variables go to the
// pods; a variable named like a secret is read from a Secret (never
// written in the Job) and without --secret is an error saying so.
func TestKubeManifest(t *testing.T) {
	plan := kubePlan(t)
	args := []string{"manifest", plan, "-g", "g1", "--shards", "2", "--image", "reg/benchtui:1", "--start-at", time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}
	code, _, stderr := runCmd(t, cmdKube, args...)
	if code != exitUsage || !strings.Contains(stderr, "KUBE_TEST_TOKEN") || !strings.Contains(stderr, "--secret") {
		t.Errorf("a secret variable without --secret: exit %d, %s", code, stderr)
	}
	code, stdout, stderr := runCmd(t, cmdKube, append(args, "--secret", "bench-secrets")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	docs := strings.Split(stdout, "---\n")
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(docs[len(docs)-1]), &job); err != nil {
		t.Fatal(err)
	}
	env := job.Spec.Template.Spec.Containers[0].Env
	if len(env) != 2 || env[0].Name != "KUBE_TEST_HOST" || env[0].Value != "10.0.0.7:8080" ||
		env[1].ValueFrom.SecretKeyRef.Name != "bench-secrets" || env[1].Value != "" {
		t.Errorf("env %+v", env)
	}
	if strings.Contains(stdout, "s3cret") || !strings.Contains(docs[0], "rows.csv: |") {
		t.Errorf("the secret is in the manifest, or the data file is not:\n%s", stdout)
	}
	if args := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " "); strings.Contains(args, "--start-tolerance") {
		t.Errorf("a shard's arguments without --start-tolerance given: %s", args)
	}
	code, stdout, stderr = runCmd(t, cmdKube, append(args, "--secret", "bench-secrets", "--start-tolerance", "30s")...)
	docs = strings.Split(stdout, "---\n")
	if code != exitOK || yaml.UnmarshalStrict([]byte(docs[len(docs)-1]), &job) != nil ||
		!strings.HasSuffix(strings.Join(job.Spec.Template.Spec.Containers[0].Args, " "), "-o /out --start-tolerance 30s") {
		t.Errorf("--start-tolerance 30s: exit %d, %s, shard arguments %q", code, stderr, job.Spec.Template.Spec.Containers[0].Args)
	}
	if code, _, stderr := runCmd(t, cmdKube, "manifest", plan, "-g", "g1", "--shards", "2", "--image", "x", "--secret", "s", "--start-at", "2020-01-01T00:00:00Z"); code != exitUsage || !strings.Contains(stderr, "is past") {
		t.Errorf("a start in the past: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCmd(t, cmdKube, "manifest", plan, "-g", "g1", "--shards", "20", "--image", "x"); code != exitUsage || !strings.Contains(stderr, "split") {
		t.Errorf("20 shards of 10 in flight: exit %d, %s", code, stderr)
	}
}

// TestKubeRunDeletesAJobNotReady: with one shard of two ready shortly
// before the start, kube run deletes the Job (and its ConfigMap) and
// exits 1. The start (now + 6 s, whole seconds) leaves more than four
// seconds before the readiness cutoff for the stand-in's first answers
// (3 s were too few at load 15: the shard that was ready was not seen). A Job that
// completes is merged (TestShardsMergeToTheServersCount).
func TestKubeRunDeletesAJobNotReady(t *testing.T) {
	defer func(d time.Duration) { kubePoll = d }(kubePoll)
	kubePoll = 50 * time.Millisecond
	plan := kubePlan(t)
	kubectl, state := standInKubectl(t, 1, false, os.DevNull)
	code, _, stderr := runCmd(t, cmdKube, "run", plan, "-g", "g1", "--shards", "2", "--image", "reg/benchtui:1", "--secret", "s",
		"--namespace", "bench", "--start-in", "6s", "--ready-by", "1s", "--kubectl", kubectl)
	deleted, _ := os.ReadFile(filepath.Join(state, "deleted"))
	if code != exitFail || !strings.Contains(stderr, "1 of 2 shards ready") || !strings.HasPrefix(string(deleted), "delete job,configmap benchtui-g1-") {
		t.Errorf("one shard of two ready: exit %d, deleted %q\n%s", code, deleted, stderr)
	}
	applied, _ := os.ReadFile(filepath.Join(state, "applied.yaml"))
	if !strings.Contains(string(applied), "kind: Job") {
		t.Errorf("nothing applied: %q", applied)
	}
}

// TestKubeMergeNoLogs: a real kubectl prints nothing and exits 0 when no
// pod has the Job's label (a wrong name, a Job past its ttl) or the pods
// never ran; merge k8s: says so, naming the Job, rather than failing to
// read an empty artifact.
func TestKubeMergeNoLogs(t *testing.T) {
	t.Parallel()
	empty := filepath.Join(t.TempDir(), "empty.log")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	kubectl, _ := standInKubectl(t, 0, false, empty)
	code, _, stderr := runCmd(t, cmdMerge, "k8s:bench/benchtui-g1-r1", "--kubectl", kubectl, "-o", t.TempDir())
	if code != exitUsage || !strings.Contains(stderr, "k8s:bench/benchtui-g1-r1") || !strings.Contains(stderr, "printed nothing") || strings.Contains(stderr, "JSON") {
		t.Errorf("merge of a Job without logs: exit %d\n%s", code, stderr)
	}
}

// TestKubeWatchNoLogs: watch k8s: whose kubectl prints nothing (a real
// kubectl's answer when no pod has the Job's label, or none has run) or
// fails says so and exits 1, rather than "no live lines yet" and 0.
func TestKubeWatchNoLogs(t *testing.T) {
	t.Parallel()
	empty := filepath.Join(t.TempDir(), "empty.log")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	kubectl, _ := standInKubectl(t, 0, false, empty)
	code, _, stderr := runCmd(t, cmdWatch, "k8s:bench/benchtui-g1-r1", "--kubectl", kubectl)
	if code != exitFail || !strings.Contains(stderr, "k8s:bench/benchtui-g1-r1") || !strings.Contains(stderr, "printed nothing") {
		t.Errorf("watch of a Job without logs: exit %d\n%s", code, stderr)
	}
	failing := filepath.Join(t.TempDir(), "kubectl")
	if err := os.WriteFile(failing, []byte("#!/bin/sh\necho 'error: You must be logged in to the server (Unauthorized)' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCmd(t, cmdWatch, "k8s:bench/benchtui-g1-r1", "--kubectl", failing)
	if code != exitFail || !strings.Contains(stderr, "Unauthorized") {
		t.Errorf("watch with a failing kubectl: exit %d\n%s", code, stderr)
	}
}

// TestKubeJobFailedWhy: a Job the controller failed is reported with the
// reason and message it wrote (a real kube-controller-manager v1.37 writes
// these on a pod failure policy's FailJob), a complete one without.
func TestKubeJobFailedWhy(t *testing.T) {
	t.Parallel()
	j := &kube.JobState{Status: kube.JobStatus{Conditions: []kube.JobCondition{
		{Type: string(batchv1.JobFailureTarget), Status: "True", Reason: "PodFailurePolicy"},
		{Type: string(batchv1.JobFailed), Status: "True", Reason: "PodFailurePolicy",
			Message: "Container shard for pod bench/benchtui-g1-r1-1-x failed with exit code 3 matching FailJob rule at index 0"},
	}}}
	c, ok := jobEnded(j)
	if want := ": PodFailurePolicy: Container shard for pod bench/benchtui-g1-r1-1-x failed with exit code 3 matching FailJob rule at index 0"; !ok || c.Type != kube.JobFailed || conditionWhy(c) != want {
		t.Errorf("jobEnded %v %v, why %q", c.Type, ok, conditionWhy(c))
	}
	if why := conditionWhy(kube.JobCondition{Type: kube.JobComplete, Status: "True", Reason: "CompletionsReached"}); why != "" {
		t.Errorf("a complete Job's why: %q", why)
	}
	if why := conditionWhy(kube.JobCondition{Type: kube.JobFailed, Status: "True", Reason: "DeadlineExceeded"}); why != ": DeadlineExceeded" {
		t.Errorf("a Job past its deadline: %q", why)
	}
}

// TestKubeRunJobFailedBeforeReady: a shard that exits before it is ready
// (exit 3, its clock ahead: bench/kube-controlplane.sh shows it on a real
// Job controller) fails the Job, whose controller deletes the other pods;
// kube run says so at once, with the controller's reason, rather than
// waiting for the readiness cutoff and reporting "0 of N shards ready".
func TestKubeRunJobFailedBeforeReady(t *testing.T) {
	defer func(d time.Duration) { kubePoll = d }(kubePoll)
	kubePoll = 50 * time.Millisecond
	plan := kubePlan(t)
	state := t.TempDir()
	script := fmt.Sprintf(`#!/bin/sh
s=%q
shift 2
case "$1" in
apply) cat >/dev/null ;;
get) printf '{"apiVersion":"batch/v1","kind":"Job","status":{"ready":1,"failed":1,"conditions":[{"type":"FailureTarget","status":"True","reason":"PodFailurePolicy"},{"type":"Failed","status":"True","reason":"PodFailurePolicy","message":"Container shard for pod bench/x-1-abc failed with exit code 3 matching FailJob rule at index 0"}]}}' ;;
delete) echo "$*" >"$s/deleted" ;;
*) echo "unexpected: $*" >&2; exit 1 ;;
esac
`, state)
	kubectl := filepath.Join(state, "kubectl")
	if err := os.WriteFile(kubectl, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	code, _, stderr := runCmd(t, cmdKube, "run", plan, "-g", "g1", "--shards", "2", "--image", "reg/benchtui:1", "--secret", "s",
		"--namespace", "bench", "--start-in", "30s", "--ready-by", "1s", "--kubectl", kubectl)
	deleted, _ := os.ReadFile(filepath.Join(state, "deleted"))
	if code != exitFail || time.Since(t0) > 10*time.Second ||
		!strings.Contains(stderr, ": Failed before the start (0 of 2 shards succeeded): PodFailurePolicy: Container shard for pod bench/x-1-abc failed with exit code 3") ||
		strings.Contains(stderr, "shards ready") || strings.Contains(stderr, "--allow-partial") ||
		!strings.HasPrefix(string(deleted), "delete job,configmap benchtui-g1-") {
		t.Errorf("a Job failed before its start: exit %d after %s, deleted %q\n%s", code, time.Since(t0).Round(time.Millisecond), deleted, stderr)
	}
}

// TestKubeMergeLogsWithoutArtifact: pods' logs with no framed artifact
// (bench/kube-controlplane.sh shows it on a real Job controller: a shard
// killed mid-run fails the Job, whose controller deletes the pods still
// running and their logs with them; what is left is the killed shard's
// live lines) are an error naming the Job and the pods, not "not a JSON
// artifact".
func TestKubeMergeLogsWithoutArtifact(t *testing.T) {
	t.Parallel()
	lines := filepath.Join(t.TempDir(), "live.log")
	if err := os.WriteFile(lines, []byte("load step 1/1 rate=300 measure 1s/4s rps 99\n{\"benchtui_live\":1,\"shard\":1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	kubectl, _ := standInKubectl(t, 0, false, lines)
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCmd(t, cmdMerge, "k8s:bench/benchtui-g1-r1", "--allow-partial", "--kubectl", kubectl, "-o", out)
	if _, err := os.Stat(out); code != exitUsage || err == nil ||
		!strings.Contains(stderr, "k8s:bench/benchtui-g1-r1: the logs of pod/job-0-abc hold no framed artifact") || strings.Contains(stderr, "JSON") {
		t.Errorf("merge of logs without an artifact: exit %d\n%s", code, stderr)
	}
}
