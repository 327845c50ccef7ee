package kube

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func testOptions() Options {
	return Options{
		Group: "reads-fetch-pooled", Shards: 3, Image: "ghcr.io/benchtui/benchtui:1.0", Namespace: "bench",
		RunID: "r20261201", StartAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC),
		CPU: "1", Memory: "512Mi", Deadline: 40 * time.Minute, TTL: 24 * time.Hour,
		PlanFile: "plan.yaml", Files: map[string]string{"plan.yaml": "version: 1\n", "paths.csv": "path\n/a\n"},
	}
}

// TestManifestDecodesStrictlyAndMatchesGolden: the stream holds a
// ConfigMap and a Job that decode strictly (an unknown or misspelled
// field fails) into the API's own types, with the Indexed Job's contract:
// completions = parallelism = shards, no retry of an index, a missed start
// (exit 3) failing the Job, requests equal to limits, the shard's command
// taking its index from the Job.
func TestManifestDecodesStrictlyAndMatchesGolden(t *testing.T) {
	cm, job, err := Manifest(testOptions())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Render(&out, cm, job); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "manifest.golden.yaml")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		os.WriteFile(golden+".got", out.Bytes(), 0o644)
		t.Errorf("manifest differs from %s (wrote %s.got; -update to accept)", golden, golden)
	}
	docs := strings.Split(out.String(), "---\n")
	if len(docs) != 2 {
		t.Fatalf("%d documents, want a ConfigMap and a Job", len(docs))
	}
	var gotCM corev1.ConfigMap
	var gotJob batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(docs[0]), &gotCM); err != nil {
		t.Fatalf("ConfigMap: %v", err)
	}
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &gotJob); err != nil {
		t.Fatalf("Job: %v", err)
	}
	checkJob(t, &gotJob)
	if gotCM.Data["paths.csv"] != "path\n/a\n" || gotCM.Name != gotJob.Name {
		t.Errorf("ConfigMap %s: %v", gotCM.Name, gotCM.Data)
	}
}

func checkJob(t *testing.T, j *batchv1.Job) {
	t.Helper()
	s := j.Spec
	if *s.CompletionMode != batchv1.IndexedCompletion || *s.Completions != 3 || *s.Parallelism != 3 ||
		*s.BackoffLimitPerIndex != 0 || *s.MaxFailedIndexes != 0 || *s.ActiveDeadlineSeconds != 2400 {
		t.Errorf("job spec: %+v", s)
	}
	rule := s.PodFailurePolicy.Rules[0]
	if rule.Action != batchv1.PodFailurePolicyActionFailJob || rule.OnExitCodes.Values[0] != ExitMissedStart {
		t.Errorf("pod failure policy: %+v", rule)
	}
	c := s.Template.Spec.Containers[0]
	if !c.Resources.Requests.Cpu().Equal(*c.Resources.Limits.Cpu()) || c.Resources.Limits.Memory().String() != "512Mi" {
		t.Errorf("resources: %+v", c.Resources)
	}
	args := strings.Join(c.Args, " ")
	if !strings.Contains(args, "--shard /3 --run-id r20261201 --start-at 2026-12-01T09:00:00Z --ready-file /tmp/benchtui-ready") {
		t.Errorf("args: %s", args)
	}
	if s.Template.Spec.RestartPolicy != "Never" || c.ReadinessProbe.Exec.Command[2] != ReadyFile {
		t.Errorf("pod: restart %s, readiness %+v", s.Template.Spec.RestartPolicy, c.ReadinessProbe)
	}
}

// TestManifestRefusesBadOptions names the option at fault.
func TestManifestRefusesBadOptions(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Options)
		want string
	}{
		{func(o *Options) { o.Shards = 0 }, "--shards 0"},
		{func(o *Options) { o.Image = "" }, "--image"},
		{func(o *Options) { o.Namespace = "Bench_NS" }, "--namespace"},
		{func(o *Options) { o.Memory = "lots" }, `resource "lots"`},
		{func(o *Options) { o.CPU = "-500m" }, `quantity "-500m": want at least 0`},
		{func(o *Options) { o.Memory = "1e50" }, "exponent 50: want -40 to 40"},
		{func(o *Options) { o.Memory = "8Ei" }, "want less than 2^63"},
		{func(o *Options) { o.Files = map[string]string{"plan.yaml": "", "data/x.csv": ""} }, "data/x.csv"},
		{func(o *Options) { o.RunID = "has space" }, "--run-id"},
	} {
		o := testOptions()
		tc.edit(&o)
		if _, _, err := Manifest(o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v", tc.want, err)
		}
	}
}
