package report

import (
	"html"
	"strings"
	"unicode/utf8"

	"github.com/benchtui/benchtui/artifacts/compare"
)

// table is a rendered table: header, rows of cells, and which columns are
// numbers (right-aligned). Reports and comparisons build tables once and
// print them as text, markdown or HTML.
type table struct {
	header []string
	rows   [][]string
	right  []bool
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) widths() []int {
	w := make([]int, len(t.header))
	for _, r := range append([][]string{t.header}, t.rows...) {
		for i, c := range r {
			if i < len(w) {
				w[i] = max(w[i], utf8.RuneCountInString(c))
			}
		}
	}
	return w
}

func (t *table) isRight(i int) bool { return i < len(t.right) && t.right[i] }

func pad(s string, w int, right bool) string {
	n := w - utf8.RuneCountInString(s)
	if n <= 0 {
		return s
	}
	if right {
		return strings.Repeat(" ", n) + s
	}
	return s + strings.Repeat(" ", n)
}

// markdown writes t as a GitHub table with padded columns, as the seed
// reports are formatted.
func (t *table) markdown(sb *strings.Builder) {
	w := t.widths()
	line := func(cells []string) {
		sb.WriteString("|")
		for i := range w {
			c := ""
			if i < len(cells) {
				c = strings.ReplaceAll(cells[i], "|", `\|`)
			}
			sb.WriteString(" " + pad(c, w[i], t.isRight(i)) + " |")
		}
		sb.WriteString("\n")
	}
	line(t.header)
	sb.WriteString("|")
	for i := range w {
		dash := strings.Repeat("-", max(w[i], 3))
		if t.isRight(i) {
			dash = dash[1:] + ":"
		}
		sb.WriteString(" " + dash + " |")
	}
	sb.WriteString("\n")
	for _, r := range t.rows {
		line(r)
	}
}

// text writes t as plain aligned columns separated by two spaces, like
// benchstat, with trailing spaces trimmed.
func (t *table) text(sb *strings.Builder) {
	w := t.widths()
	for _, r := range append([][]string{t.header}, t.rows...) {
		var line strings.Builder
		for i := range w {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			if i > 0 {
				line.WriteString("  ")
			}
			line.WriteString(pad(c, w[i], t.isRight(i)))
		}
		sb.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// html writes t as an HTML table, escaping every cell, in a box of its
// own that scrolls sideways when the table is wider than the screen.
func (t *table) html(sb *strings.Builder) {
	sb.WriteString("<div class=\"scroll\"><table>\n<thead><tr>")
	for i, h := range t.header {
		sb.WriteString("<th" + t.class(i) + ">" + html.EscapeString(h) + "</th>")
	}
	sb.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range t.rows {
		sb.WriteString("<tr>")
		for i, c := range r {
			sb.WriteString(htmlCell(c, t.class(i)))
		}
		sb.WriteString("</tr>\n")
	}
	sb.WriteString("</tbody>\n</table></div>\n")
}

// htmlCell is one escaped cell. A verdict (a cell that starts with
// "better" or "worse") and a check's ok/FAIL are coloured, and carry a
// ✓ or ✗ so that they read without colour too.
func htmlCell(c, class string) string {
	switch {
	case strings.HasPrefix(c, compare.Better):
		return `<td class="ok">✓ ` + html.EscapeString(c) + "</td>"
	case strings.HasPrefix(c, compare.Worse):
		return `<td class="bad">✗ ` + html.EscapeString(c) + "</td>"
	}
	return "<td" + class + ">" + html.EscapeString(c) + "</td>"
}

func (t *table) class(i int) string {
	if t.isRight(i) {
		return ` class="num"`
	}
	return ""
}
