package kube

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// The local types are checked against k8s.io/api here, a test import:
// it never reaches the binary (go list -deps ./cmd/benchtui lists no
// k8s.io package).

// TestManifestIsTheAPIsOwn: for options that set every field benchtui
// writes (plain and secret variables, quantities kept as given and
// canonicalised), the printed ConfigMap and Job decode strictly into
// k8s.io/api's types (an unknown, misspelled or mistyped field fails),
// and those types write them back byte for byte (a field lost, an
// omitempty that differs, a quantity not in canonical form would not).
func TestManifestIsTheAPIsOwn(t *testing.T) {
	for _, edit := range []func(*Options){
		func(o *Options) {},
		func(o *Options) {
			o.CPU, o.Memory, o.Shards, o.TTL = "0.5", "1024Mi", 7, 0
			o.Env = map[string]string{"HOST": "127.0.0.1:8080", "EMPTY": "", "Z_LAST": "multi\nline"}
			o.SecretEnv, o.Secret = []string{"API_TOKEN", "DB_PASSWORD"}, "bench-secrets"
		},
		func(o *Options) { o.CPU, o.Memory = "1.500k", "0.5Gi" },
		func(o *Options) { o.CPU, o.Memory = "2500m", "1e9" },
	} {
		o := testOptions()
		edit(&o)
		cm, job, err := Manifest(o)
		if err != nil {
			t.Fatal(err)
		}
		var ours bytes.Buffer
		if err := Render(&ours, cm, job); err != nil {
			t.Fatal(err)
		}
		docs := strings.Split(ours.String(), "---\n")
		var apiCM corev1.ConfigMap
		var apiJob batchv1.Job
		if err := yaml.UnmarshalStrict([]byte(docs[0]), &apiCM); err != nil {
			t.Fatalf("ConfigMap: %v", err)
		}
		if err := yaml.UnmarshalStrict([]byte(docs[1]), &apiJob); err != nil {
			t.Fatalf("Job: %v", err)
		}
		if theirs := renderAPI(t, &apiCM, &apiJob); theirs != ours.String() {
			t.Errorf("cpu %s memory %s: k8s.io/api writes\n%s\nbenchtui wrote\n%s", o.CPU, o.Memory, theirs, ours.String())
		}
	}
}

// renderAPI writes k8s.io/api objects as benchtui wrote them before it
// had its own types: their JSON as YAML, without the fields only the API
// server fills (status, a null creationTimestamp).
func renderAPI(t *testing.T, objs ...any) string {
	t.Helper()
	var out []string
	for _, o := range objs {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "status")
		delete(m["metadata"].(map[string]any), "creationTimestamp")
		if spec, ok := m["spec"].(map[string]any); ok {
			delete(spec["template"].(map[string]any)["metadata"].(map[string]any), "creationTimestamp")
		}
		y, err := yaml.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(y))
	}
	return strings.Join(out, "---\n")
}

// TestJobStateReadsTheAPIsStatus: what kube run reads of `kubectl get job
// -o json` (ready, succeeded, failed, the conditions) has the names
// k8s.io/api's Job status writes.
func TestJobStateReadsTheAPIsStatus(t *testing.T) {
	ready := int32(2)
	api := batchv1.Job{Status: batchv1.JobStatus{Ready: &ready, Succeeded: 1, Failed: 3, Conditions: []batchv1.JobCondition{
		{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "PodFailurePolicy", Message: "exit code 3", LastTransitionTime: metav1.Now()},
	}}}
	b, err := json.Marshal(api)
	if err != nil {
		t.Fatal(err)
	}
	var got JobState
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	s := got.Status
	if s.Ready == nil || *s.Ready != 2 || s.Succeeded != 1 || s.Failed != 3 || len(s.Conditions) != 1 ||
		s.Conditions[0] != (JobCondition{Type: JobFailed, Status: "True", Reason: "PodFailurePolicy", Message: "exit code 3"}) {
		t.Errorf("read %+v from %s", s, b)
	}
	if JobComplete != string(batchv1.JobComplete) || JobFailed != string(batchv1.JobFailed) {
		t.Errorf("condition types %s %s", JobComplete, JobFailed)
	}
}
