package kube

// The Kubernetes objects benchtui writes and reads, with exactly the
// fields it sets: each struct is a subset of the k8s.io/api type of the
// same name, with the same JSON names and omitempty, so that the YAML is
// what those types would write. The tests decode every printed manifest
// strictly into the k8s.io/api types (a misspelled or unknown field
// fails) and write it back through them byte for byte; they are test
// imports only, so the API's packages stay out of the binary.

// TypeMeta is an object's apiVersion and kind.
type TypeMeta struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
}

// ObjectMeta is an object's name, namespace and labels.
type ObjectMeta struct {
	Name      string            `json:"name,omitempty"`
	Namespace string            `json:"namespace,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
}

// ConfigMap is a v1 ConfigMap.
type ConfigMap struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Data       map[string]string `json:"data,omitempty"`
}

// Job is a batch/v1 Job as benchtui writes it (no status).
type Job struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       JobSpec `json:"spec,omitempty"`
}

// JobSpec is the spec of an Indexed Job.
type JobSpec struct {
	Parallelism             *int32            `json:"parallelism,omitempty"`
	Completions             *int32            `json:"completions,omitempty"`
	ActiveDeadlineSeconds   *int64            `json:"activeDeadlineSeconds,omitempty"`
	PodFailurePolicy        *PodFailurePolicy `json:"podFailurePolicy,omitempty"`
	BackoffLimitPerIndex    *int32            `json:"backoffLimitPerIndex,omitempty"`
	MaxFailedIndexes        *int32            `json:"maxFailedIndexes,omitempty"`
	Template                PodTemplateSpec   `json:"template"`
	TTLSecondsAfterFinished *int32            `json:"ttlSecondsAfterFinished,omitempty"`
	CompletionMode          *string           `json:"completionMode,omitempty"`
}

// PodFailurePolicy is a Job's rules on how a pod's failure counts.
type PodFailurePolicy struct {
	Rules []PodFailurePolicyRule `json:"rules"`
}

// PodFailurePolicyRule is one rule: an action on some exit codes.
type PodFailurePolicyRule struct {
	Action      string                                  `json:"action"`
	OnExitCodes *PodFailurePolicyOnExitCodesRequirement `json:"onExitCodes,omitempty"`
}

// PodFailurePolicyOnExitCodesRequirement matches a container's exit code.
type PodFailurePolicyOnExitCodesRequirement struct {
	Operator string  `json:"operator"`
	Values   []int32 `json:"values"`
}

// PodTemplateSpec is the pod a Job makes for each index.
type PodTemplateSpec struct {
	ObjectMeta `json:"metadata,omitempty"`
	Spec       PodSpec `json:"spec,omitempty"`
}

// PodSpec is a shard's pod.
type PodSpec struct {
	Volumes                   []Volume                   `json:"volumes,omitempty"`
	Containers                []Container                `json:"containers"`
	RestartPolicy             string                     `json:"restartPolicy,omitempty"`
	TopologySpreadConstraints []TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
}

// TopologySpreadConstraint spreads the pods over the values of a node label.
type TopologySpreadConstraint struct {
	MaxSkew           int32          `json:"maxSkew"`
	TopologyKey       string         `json:"topologyKey"`
	WhenUnsatisfiable string         `json:"whenUnsatisfiable"`
	LabelSelector     *LabelSelector `json:"labelSelector,omitempty"`
}

// LabelSelector selects the pods whose labels are these.
type LabelSelector struct {
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
}

// Volume is a pod's volume: a ConfigMap's files or an empty folder.
type Volume struct {
	Name      string                 `json:"name"`
	ConfigMap *ConfigMapVolumeSource `json:"configMap,omitempty"`
	EmptyDir  *EmptyDirVolumeSource  `json:"emptyDir,omitempty"`
}

// ConfigMapVolumeSource names the ConfigMap whose keys are the files.
type ConfigMapVolumeSource struct {
	Name string `json:"name,omitempty"`
}

// EmptyDirVolumeSource is an empty folder living as long as the pod.
type EmptyDirVolumeSource struct{}

// Container is the shard's container.
type Container struct {
	Name           string               `json:"name"`
	Image          string               `json:"image,omitempty"`
	Args           []string             `json:"args,omitempty"`
	Env            []EnvVar             `json:"env,omitempty"`
	Resources      ResourceRequirements `json:"resources,omitempty"`
	VolumeMounts   []VolumeMount        `json:"volumeMounts,omitempty"`
	ReadinessProbe *Probe               `json:"readinessProbe,omitempty"`
}

// EnvVar is a variable by value or from a Secret's key.
type EnvVar struct {
	Name      string        `json:"name"`
	Value     string        `json:"value,omitempty"`
	ValueFrom *EnvVarSource `json:"valueFrom,omitempty"`
}

// EnvVarSource is where a variable's value is read.
type EnvVarSource struct {
	SecretKeyRef *SecretKeySelector `json:"secretKeyRef,omitempty"`
}

// SecretKeySelector is a key of a Secret.
type SecretKeySelector struct {
	Name string `json:"name,omitempty"`
	Key  string `json:"key"`
}

// ResourceList maps a resource (cpu, memory) to a quantity in its
// canonical form (see Quantity).
type ResourceList map[string]string

// ResourceRequirements are a container's requests and limits.
type ResourceRequirements struct {
	Limits   ResourceList `json:"limits,omitempty"`
	Requests ResourceList `json:"requests,omitempty"`
}

// VolumeMount is where a volume is in the container.
type VolumeMount struct {
	Name      string `json:"name"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
	MountPath string `json:"mountPath"`
}

// Probe is a readiness probe running a command.
type Probe struct {
	Exec             *ExecAction `json:"exec,omitempty"`
	PeriodSeconds    int32       `json:"periodSeconds,omitempty"`
	FailureThreshold int32       `json:"failureThreshold,omitempty"`
}

// ExecAction is a command run in the container.
type ExecAction struct {
	Command []string `json:"command,omitempty"`
}

// JobState is what kube run reads of a Job (`kubectl get job -o json`):
// its status.
type JobState struct {
	Status JobStatus `json:"status"`
}

// JobStatus counts a Job's pods and holds its conditions.
type JobStatus struct {
	Conditions []JobCondition `json:"conditions,omitempty"`
	Succeeded  int32          `json:"succeeded,omitempty"`
	Failed     int32          `json:"failed,omitempty"`
	Ready      *int32         `json:"ready,omitempty"`
}

// The condition types a Job ends with.
const (
	JobComplete = "Complete"
	JobFailed   = "Failed"
)

// JobCondition is one condition of a Job, as the Job controller wrote it.
type JobCondition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}
