package plan

import (
	"errors"
	"fmt"
	"reflect"

	yaml "go.yaml.in/yaml/v3"
)

// DecodeThresholds decodes a group's thresholds as an artifact's config
// holds them (group.config.thresholds), with the plan's strict rules, so
// that a merge of shards is judged as the run would have been; where
// names the input in messages. A nil v is no thresholds.
func DecodeThresholds(where string, v any) (Thresholds, error) {
	var th Thresholds
	if v == nil {
		return th, nil
	}
	data, err := yaml.Marshal(v)
	if err != nil {
		return th, fmt.Errorf("%s: thresholds: %w", where, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 {
		return th, fmt.Errorf("%s: thresholds: not a mapping", where)
	}
	d := &decoder{file: where, shown: map[*yaml.Node]string{}}
	d.decode(root.Content[0], reflect.ValueOf(&th).Elem(), "thresholds")
	if len(d.errs) == 0 {
		d.errs = th.validate(where)
	}
	return th, errors.Join(d.errs...)
}
