package report

import (
	"maps"
	"slices"

	"github.com/benchtui/benchtui/artifacts"
)

// byNameTable lays out the figures of each named request, one row per
// step and name (the step's label first when there are several steps),
// with the operations by status code of the name's step. Nil when no step
// has named figures.
func byNameTable(steps []artifacts.Step) *table {
	return stepRowsTable(steps, []string{"request", "requests", "errors", "p50 (ms)", "p99 (ms)", "max (ms)"}, func(s *artifacts.Step) [][]string {
		var rows [][]string
		for _, name := range slices.Sorted(maps.Keys(s.ByName)) {
			n := s.ByName[name]
			rows = append(rows, []string{name, artifacts.FormatNumber(float64(n.Requests)), artifacts.FormatNumber(float64(n.Errors)),
				msCell(n.LatencyMS.P50), msCell(n.LatencyMS.P99), msCell(n.LatencyMS.Max)})
		}
		return rows
	})
}

// stepRowsTable is a table of the rows each step gives, its first column
// left-aligned and the others right-aligned, the step's label first when
// there are several steps. Nil without rows.
func stepRowsTable(steps []artifacts.Step, header []string, rows func(s *artifacts.Step) [][]string) *table {
	t := &table{header: header, right: make([]bool, len(header))}
	for i := 1; i < len(header); i++ {
		t.right[i] = true
	}
	multi := len(steps) > 1
	if multi {
		t.header = append([]string{"step"}, t.header...)
		t.right = append([]bool{false}, t.right...)
	}
	for i := range steps {
		for _, cells := range rows(&steps[i]) {
			if multi {
				cells = append([]string{steps[i].Label}, cells...)
			}
			t.add(cells...)
		}
	}
	if len(t.rows) == 0 {
		return nil
	}
	return t
}

// statusTable is each step's operations by status code, one row per step
// (its label first) and a column per code. Nil when no step counted any.
func statusTable(steps []artifacts.Step) *table {
	codes := map[string]bool{}
	for _, s := range steps {
		for code := range s.Status {
			codes[code] = true
		}
	}
	if len(codes) == 0 {
		return nil
	}
	t := &table{header: []string{"step"}, right: []bool{false}}
	for _, code := range slices.Sorted(maps.Keys(codes)) {
		t.header = append(t.header, code)
		t.right = append(t.right, true)
	}
	for _, s := range steps {
		cells := []string{s.Label}
		for _, code := range t.header[1:] {
			cells = append(cells, artifacts.FormatNumber(float64(s.Status[code])))
		}
		t.add(cells...)
	}
	return t
}
