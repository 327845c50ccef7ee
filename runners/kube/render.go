package kube

import (
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// Render writes objs as one YAML stream (documents separated by ---),
// ready for `kubectl apply -f -`. Fields only the API server fills (an
// empty status, a null creationTimestamp) are left out.
func Render(w io.Writer, objs ...any) error {
	for i, o := range objs {
		m, err := asMap(o)
		if err != nil {
			return err
		}
		delete(m, "status")
		if meta, ok := m["metadata"].(map[string]any); ok {
			delete(meta, "creationTimestamp")
		}
		dropNullTimestamps(m)
		b, err := yaml.Marshal(m)
		if err != nil {
			return fmt.Errorf("kube manifest: %w", err)
		}
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return err
			}
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// asMap is o as its JSON object.
func asMap(o any) (map[string]any, error) {
	b, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("kube manifest: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("kube manifest: %w", err)
	}
	return m, nil
}

// dropNullTimestamps removes every creationTimestamp: null (a pod
// template's metadata has one too).
func dropNullTimestamps(v any) {
	switch x := v.(type) {
	case map[string]any:
		if t, ok := x["creationTimestamp"]; ok && t == nil {
			delete(x, "creationTimestamp")
		}
		for _, c := range x {
			dropNullTimestamps(c)
		}
	case []any:
		for _, c := range x {
			dropNullTimestamps(c)
		}
	}
}
