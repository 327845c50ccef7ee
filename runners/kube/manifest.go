// Package kube writes the Kubernetes objects that run one group of a plan
// on N machines: a ConfigMap holding the plan (and its data files) and a
// plain batch/v1 Indexed Job whose pods each run one shard
// (`benchtui run --shard /N`, the index from JOB_COMPLETION_INDEX). No
// operator is needed: the Job controller of any cluster runs it.
package kube

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Paths inside a shard's pod.
const (
	PlanDir   = "/plan"
	OutDir    = "/out"
	ReadyFile = "/tmp/benchtui-ready"
	// ExitMissedStart is a shard's exit code when it was not ready by the
	// start time; the Job's pod failure policy fails the whole Job on it.
	ExitMissedStart = 3
)

// Options are what a manifest needs beside the plan.
type Options struct {
	// Group is the id of the plan's group to run.
	Group string
	// Shards is how many pods run it (completions = parallelism).
	Shards int
	// Image is the container image holding the benchtui binary (its
	// entrypoint or PATH).
	Image     string
	Namespace string
	// RunID names the run: every shard's artifact carries it, and merge
	// refuses artifacts of other runs.
	RunID   string
	StartAt time.Time
	// StartTolerance, when set, is each shard's run --start-tolerance.
	StartTolerance time.Duration
	// CPU and Memory are each shard's requests, equal to its limits so
	// that a shard gets what it asks and no more (e.g. "1", "512Mi").
	CPU, Memory string
	// Deadline bounds the Job (activeDeadlineSeconds); TTL is how long a
	// finished Job stays (ttlSecondsAfterFinished) so its logs can be read.
	Deadline, TTL time.Duration
	// PlanFile is the plan's name in the ConfigMap; Files are the plan and
	// the data files it reads, by name.
	PlanFile string
	Files    map[string]string
	// Env are the plan's environment variables, set in each shard as here;
	// SecretEnv those named like secrets, read from the Secret named
	// Secret (one key per variable) rather than written in the Job.
	Env       map[string]string
	SecretEnv []string
	Secret    string
}

// validName is a DNS-1123 label: what object names and keys accept.
var validName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// validKey is a ConfigMap key.
var validKey = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)

// check reports the first problem of o, naming its flag.
func (o Options) check() error {
	switch {
	case o.Shards < 1 || o.Shards > 1000:
		return fmt.Errorf("--shards %d: want 1 to 1000", o.Shards)
	case o.Image == "" || strings.ContainsAny(o.Image, " \t\n"):
		return fmt.Errorf("--image %q: want an image reference", o.Image)
	case !validName.MatchString(o.Namespace) || len(o.Namespace) > 63:
		return fmt.Errorf("--namespace %q: want a DNS-1123 label", o.Namespace)
	case o.RunID == "" || len(o.RunID) > 40 || !validName.MatchString(strings.ToLower(o.RunID)):
		return fmt.Errorf("--run-id %q: want 1 to 40 letters, digits and '-'", o.RunID)
	case o.Deadline <= 0 || o.TTL < 0:
		return fmt.Errorf("deadline %s, ttl %s: want a positive deadline and a ttl of at least 0", o.Deadline, o.TTL)
	}
	for name := range o.Files {
		if !validKey.MatchString(name) || len(name) > 253 {
			return fmt.Errorf("file %q: a ConfigMap key is letters, digits, '-', '_' and '.': put the plan's data files beside it", name)
		}
	}
	if len(o.SecretEnv) > 0 && !validName.MatchString(o.Secret) {
		return fmt.Errorf("the plan reads %s, named like secrets: create a Secret with a key of each and give --secret NAME", strings.Join(o.SecretEnv, ", "))
	}
	if _, ok := o.Files[o.PlanFile]; !ok {
		return fmt.Errorf("plan file %q is not among the files", o.PlanFile)
	}
	for _, q := range []string{o.CPU, o.Memory} {
		if _, err := Quantity(q); err != nil {
			return fmt.Errorf("resource %q: %w", q, err)
		}
	}
	return nil
}

// Name is the Job's (and the ConfigMap's) name: benchtui-GROUP-RUNID,
// lower-cased and cut to the 63 bytes of a label.
func (o Options) Name() string {
	n := strings.ToLower("benchtui-" + o.Group + "-" + o.RunID)
	n = regexp.MustCompile(`[^-a-z0-9]+`).ReplaceAllString(n, "-")
	if len(n) > 63 {
		n = n[:63]
	}
	return strings.Trim(n, "-")
}

// Manifest builds the ConfigMap and the Job that run o.Group on o.Shards
// pods from o.StartAt.
func Manifest(o Options) (*ConfigMap, *Job, error) {
	if err := o.check(); err != nil {
		return nil, nil, fmt.Errorf("kube manifest: %w", err)
	}
	name := o.Name()
	labels := map[string]string{"app.kubernetes.io/name": "benchtui", "benchtui.dev/run-id": strings.ToLower(o.RunID), "benchtui.dev/group": labelValue(o.Group)}
	meta := ObjectMeta{Name: name, Namespace: o.Namespace, Labels: labels}
	cm := &ConfigMap{TypeMeta: TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta, Data: o.Files}
	n := int32(o.Shards)
	job := &Job{
		TypeMeta:   TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: meta,
		Spec: JobSpec{
			CompletionMode:          ptr("Indexed"),
			Completions:             &n,
			Parallelism:             &n,
			BackoffLimitPerIndex:    ptr(int32(0)),
			MaxFailedIndexes:        ptr(int32(0)),
			ActiveDeadlineSeconds:   ptr(int64(o.Deadline.Seconds())),
			TTLSecondsAfterFinished: ptr(int32(o.TTL.Seconds())),
			PodFailurePolicy: &PodFailurePolicy{Rules: []PodFailurePolicyRule{{
				Action:      "FailJob",
				OnExitCodes: &PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{ExitMissedStart}},
			}}},
			Template: PodTemplateSpec{ObjectMeta: ObjectMeta{Labels: labels}, Spec: podSpec(o, name, labels)},
		},
	}
	return cm, job, nil
}

// podSpec is a shard's pod: the plan mounted from the ConfigMap, one
// container running its shard, ready once the shard has prepared.
func podSpec(o Options, name string, labels map[string]string) PodSpec {
	cpu, _ := Quantity(o.CPU) // checked
	memory, _ := Quantity(o.Memory)
	res := ResourceList{"cpu": cpu, "memory": memory}
	return PodSpec{
		RestartPolicy: "Never", // a pod failure policy needs it
		TopologySpreadConstraints: []TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: "ScheduleAnyway",
			LabelSelector: &LabelSelector{MatchLabels: labels},
		}},
		Volumes: []Volume{
			{Name: "plan", ConfigMap: &ConfigMapVolumeSource{Name: name}},
			{Name: "out", EmptyDir: &EmptyDirVolumeSource{}},
		},
		Containers: []Container{{
			Name:      "shard",
			Image:     o.Image,
			Args:      shardArgs(o),
			Env:       envOf(o),
			Resources: ResourceRequirements{Requests: res, Limits: res},
			VolumeMounts: []VolumeMount{
				{Name: "plan", MountPath: PlanDir, ReadOnly: true},
				{Name: "out", MountPath: OutDir},
			},
			ReadinessProbe: &Probe{
				Exec:          &ExecAction{Command: []string{"test", "-f", ReadyFile}},
				PeriodSeconds: 1, FailureThreshold: 1,
			},
		}},
	}
}

// envOf is the shard container's environment: the plain variables by
// value, the secret ones from the Secret, in name order.
func envOf(o Options) []EnvVar {
	var out []EnvVar
	for _, name := range slices.Sorted(maps.Keys(o.Env)) {
		out = append(out, EnvVar{Name: name, Value: o.Env[name]})
	}
	for _, name := range slices.Sorted(slices.Values(o.SecretEnv)) {
		out = append(out, EnvVar{Name: name, ValueFrom: &EnvVarSource{
			SecretKeyRef: &SecretKeySelector{Name: o.Secret, Key: name},
		}})
	}
	return out
}

// labelValue makes s a label value (63 bytes of [-_.A-Za-z0-9]).
func labelValue(s string) string {
	s = regexp.MustCompile(`[^-_.A-Za-z0-9]+`).ReplaceAllString(s, "-")
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.Trim(s, "-_.")
}

func ptr[T any](v T) *T { return &v }

// shardArgs are a shard's benchtui arguments: the plan's group, as shard
// /N (the pod's completion index is I), on the run's clock.
func shardArgs(o Options) []string {
	args := []string{"run", PlanDir + "/" + o.PlanFile, "-g", o.Group,
		"--shard", fmt.Sprintf("/%d", o.Shards), "--run-id", o.RunID,
		"--start-at", o.StartAt.UTC().Format(time.RFC3339), "--ready-file", ReadyFile, "-o", OutDir}
	if o.StartTolerance > 0 {
		args = append(args, "--start-tolerance", o.StartTolerance.String())
	}
	return args
}
