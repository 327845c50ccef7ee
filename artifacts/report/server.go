package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/benchtui/benchtui/artifacts"
)

// serverTable lists, per step, the counts of the target's log patterns
// (counters log.NAME) and the heap profiles saved beside the artifact;
// nil when no step has either.
func serverTable(steps []artifacts.Step) *table {
	t := &table{header: []string{"step", "figure", "value"}, right: []bool{false, false, true}}
	for _, s := range steps {
		for _, name := range slices.Sorted(maps.Keys(s.Counters)) {
			if strings.HasPrefix(name, "log.") {
				t.add(s.Label, "counters."+name, fmt.Sprint(s.Counters[name]))
			}
		}
		for _, name := range slices.Sorted(maps.Keys(s.Profiles)) {
			t.add(s.Label, "profiles."+name, s.Profiles[name])
		}
	}
	if len(t.rows) == 0 {
		return nil
	}
	return t
}
