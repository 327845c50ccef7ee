package kube

import (
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// Render writes objs as one YAML stream (documents separated by ---),
// ready for `kubectl apply -f -`: each object's JSON (keys in order) as
// YAML.
func Render(w io.Writer, objs ...any) error {
	for i, o := range objs {
		b, err := yaml.Marshal(o)
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
