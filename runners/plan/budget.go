package plan

import (
	"fmt"
	"io"

	yaml "go.yaml.in/yaml/v3"

	"github.com/benchtui/benchtui/artifacts"
)

// MaxPlanBytes bounds a plan file: a plan is written by hand, and reading
// must end (`validate /dev/zero`).
const MaxPlanBytes = 4 << 20

// MaxPlanNodes bounds the YAML nodes of a plan with every alias followed:
// the decoder, the ${VAR} walk and the artifact's config all visit the
// tree as expanded, so a few hundred bytes of nested aliases (an alias
// bomb) would otherwise cost minutes and gigabytes.
const MaxPlanNodes = 100_000

// readPlanFile reads at most MaxPlanBytes of path.
func readPlanFile(path string) ([]byte, error) {
	f, err := artifacts.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("reading plan: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxPlanBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading plan %s: %w", path, err)
	}
	if len(data) > MaxPlanBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB: not a plan", path, MaxPlanBytes>>20)
	}
	return data, nil
}

// checkExpandedSize reports an error when the tree under root, aliases
// followed, has more than limit nodes or an alias that contains itself.
// Each node's expanded size is computed once, so the check itself costs
// one visit per node as written.
func checkExpandedSize(file string, root *yaml.Node, limit int) error {
	s := sizer{limit: limit, size: map[*yaml.Node]int{}, open: map[*yaml.Node]bool{}}
	n := s.count(root)
	if s.cycle != nil {
		return fmt.Errorf("%s:%d:%d: anchor &%s contains an alias of itself", file, s.cycle.Line, s.cycle.Column, s.cycle.Anchor)
	}
	if n > limit {
		return fmt.Errorf("%s: more than %d values once its aliases are expanded (an alias bomb?): write the plan out", file, limit)
	}
	return nil
}

// sizer counts expanded nodes, saturating just above its limit.
type sizer struct {
	limit int
	size  map[*yaml.Node]int
	open  map[*yaml.Node]bool
	cycle *yaml.Node
}

func (s *sizer) count(n *yaml.Node) int {
	if n == nil || s.cycle != nil {
		return 0
	}
	if v, ok := s.size[n]; ok {
		return v
	}
	if s.open[n] {
		s.cycle = n
		return 0
	}
	s.open[n] = true
	total := 1
	if n.Kind == yaml.AliasNode {
		total += s.count(n.Alias)
	}
	for _, c := range n.Content {
		total = min(total+s.count(c), s.limit+1)
	}
	delete(s.open, n)
	s.size[n] = total
	return total
}
