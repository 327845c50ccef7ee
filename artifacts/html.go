package artifacts

import (
	"fmt"
	"html"
	"strings"
)

// htmlStyle is the report's whole style sheet: the file carries it inline
// and loads nothing from the network.
const htmlStyle = `body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:980px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;margin:.6em 0}th,td{border:1px solid #ccc;padding:.25em .6em}
th{background:#f4f4f4;text-align:left}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.meta{color:#555}.charts{display:flex;flex-wrap:wrap;gap:1em}
svg{background:#fcfcfc;border:1px solid #e3e3e3}svg text{font:11px system-ui,sans-serif;fill:#555}
.ok{color:#16803c}.bad{color:#b42318}.warn{color:#9a6700}`

// ReportHTML renders arts as one self-contained HTML file: the same sections
// and tables as Report, and inline SVG line charts of latency p50/p99,
// throughput and RSS over time from the newest run's series.
func ReportHTML(arts []*Artifact) string {
	secs := buildSections(arts)
	var sb strings.Builder
	sb.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	sb.WriteString("<title>benchtui report</title>\n<style>\n" + htmlStyle + "\n</style>\n</head>\n<body>\n")
	sb.WriteString("<h1>benchtui report</h1>\n")
	fmt.Fprintf(&sb, "<p>%d artifacts of %d groups.</p>\n", len(arts), len(secs))
	for _, s := range secs {
		s.html(&sb)
	}
	sb.WriteString("</body>\n</html>\n")
	return sb.String()
}

func (s *section) html(sb *strings.Builder) {
	fmt.Fprintf(sb, "<section id=\"%s\">\n<h2>%s — %s</h2>\n", html.EscapeString(s.id),
		html.EscapeString(s.id), html.EscapeString(orNone(s.title)))
	sb.WriteString("<p class=\"meta\">" + metaHTML(s.meta) + "</p>\n")
	fmt.Fprintf(sb, "<p class=\"%s\"><b>Ended:</b> %s</p>\n", endingClass(s.ending), html.EscapeString(s.ending.String()))
	if soak := s.soakLines(); len(soak) > 0 {
		htmlItems(sb, soak)
	}
	for _, t := range s.tables {
		if t.title != "" {
			sb.WriteString("<h3>" + html.EscapeString(t.title) + "</h3>\n")
		}
		t.t.html(sb)
	}
	if charts := seriesCharts(s.newest); len(charts) > 0 {
		sb.WriteString("<div class=\"charts\">\n" + strings.Join(charts, "") + "</div>\n")
	}
	htmlList(sb, "Warnings", s.warnings)
	htmlList(sb, "Checks", s.checks)
	htmlList(sb, "Events", s.events)
	htmlList(sb, "Notes", s.notes)
	sb.WriteString("</section>\n")
}

// metaHTML turns the markdown meta line (**bold**, `code`) into HTML.
func metaHTML(md string) string {
	out := html.EscapeString(md)
	for _, m := range []struct{ mark, open, close string }{{"**", "<b>", "</b>"}, {"`", "<code>", "</code>"}} {
		parts := strings.Split(out, m.mark)
		var b strings.Builder
		for i, p := range parts {
			switch {
			case i%2 == 1:
				b.WriteString(m.open)
			case i > 0:
				b.WriteString(m.close)
			}
			b.WriteString(p)
		}
		out = b.String()
	}
	return out
}

func htmlList(sb *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	sb.WriteString("<h4>" + title + "</h4>\n")
	htmlItems(sb, items)
}

// htmlItems is a list whose items are coloured by their mark: ✓ ok, ✗ bad,
// ⚠ warn.
func htmlItems(sb *strings.Builder, items []string) {
	sb.WriteString("<ul>\n")
	for _, it := range items {
		class := ""
		for _, m := range [][2]string{{"✓", "ok"}, {"✗", "bad"}, {"⚠", "warn"}} {
			if strings.HasPrefix(it, m[0]) || strings.Contains(it, ": "+m[0]) {
				class = ` class="` + m[1] + `"`
				break
			}
		}
		sb.WriteString("<li" + class + ">" + html.EscapeString(it) + "</li>\n")
	}
	sb.WriteString("</ul>\n")
}

// endingClass colours the ending line: ok on a pass, bad on a failed
// check, warn otherwise (leak suspected, cut short).
func endingClass(e Ending) string {
	switch {
	case e.Pass():
		return "ok"
	case len(e.Failed) > 0:
		return "bad"
	}
	return "warn"
}

// seriesCharts draws the newest run's series, every step one after the
// other on one time axis.
func seriesCharts(a *Artifact) []string {
	if a == nil {
		return nil
	}
	var t, p50, p99, rps, rss []float64
	var offset float64
	hasRSS := false
	for _, s := range a.Steps {
		for _, p := range s.Series {
			t = append(t, offset+p.T)
			p50, p99, rps, rss = append(p50, p.P50MS), append(p99, p.P99MS), append(rps, p.RPS), append(rss, p.RSSMB)
			hasRSS = hasRSS || p.RSSMB > 0
		}
		if n := len(s.Series); n > 0 {
			offset += s.Series[n-1].T
		}
	}
	if len(t) < 2 {
		return nil
	}
	charts := []string{
		svgChart("Latency (ms)", t, []line{{"p50", "#2563eb", p50}, {"p99", "#dc2626", p99}}),
		svgChart("Throughput (ops/s)", t, []line{{"ops/s", "#16a34a", rps}}),
	}
	if hasRSS {
		charts = append(charts, svgChart("Target RSS (MB)", t, []line{{"RSS", "#9333ea", rss}}))
	}
	return charts
}
