package report

import (
	"fmt"
	"html"
	"strings"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
)

// htmlStyle is the report's whole style sheet: the file carries it inline
// and loads nothing from the network. Colours are variables so that a
// reader's dark mode (prefers-color-scheme) turns the page and the
// charts' text, grid and frames dark together; the charts' lines keep
// their colours, which read on both. A table wider than the screen
// scrolls in its .scroll box, whose scrollbar is styled so that a phone
// shows it (its overlay scrollbars show none until touched).
const htmlStyle = `:root{--fg:#1f2328;--muted:#57606a;--bg:#fff;--panel:#fafbfc;--line:#d0d7de;--grid:#e6e9ed;--th:#f3f4f6;
--ok:#1a7f37;--okbg:#dafbe1;--bad:#b42318;--badbg:#ffebe9;--warn:#9a6700}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9da7b3;--bg:#0d1117;--panel:#161b22;--line:#30363d;--grid:#262c34;
--th:#1c2128;--ok:#3fb950;--okbg:#12261a;--bad:#f85149;--badbg:#2d1214;--warn:#d29922}}
body{font:15px/1.5 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:var(--fg);background:var(--bg);padding:0 1em}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid var(--line);padding-bottom:.2em}
table{border-collapse:collapse}th,td{border:1px solid var(--line);padding:.25em .6em}
.scroll{overflow-x:auto;margin:.6em 0}.scroll::-webkit-scrollbar{height:8px}
.scroll::-webkit-scrollbar-thumb{background:var(--line);border-radius:4px}
th{background:var(--th);text-align:left}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
code{white-space:nowrap}.meta{color:var(--muted)}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,420px),1fr));gap:1em}
svg{width:100%;height:auto;background:var(--panel);border:1px solid var(--line);border-radius:4px}
svg text{font:13px system-ui,sans-serif;fill:var(--muted)}svg text.title{font-weight:600;fill:var(--fg)}
svg .grid{stroke:var(--grid);stroke-width:1}svg .frame{fill:none;stroke:var(--line)}
svg .mark{stroke:var(--muted);stroke-dasharray:2 3}
.ok{color:var(--ok)}.bad{color:var(--bad)}.warn{color:var(--warn)}
td.ok{background:var(--okbg)}td.bad{background:var(--badbg)}`

// ReportHTML renders arts as one self-contained HTML file: the same sections
// and tables as Report, and inline SVG line charts of latency p50/p99,
// throughput and RSS over time from the newest run's series.
func ReportHTML(arts []*artifacts.Artifact) string {
	secs := buildSections(arts)
	var sb strings.Builder
	sb.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	sb.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light dark\">\n")
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
		html.EscapeString(s.id), html.EscapeString(compare.OrNone(s.title)))
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
	if charts := s.charts(); len(charts) > 0 {
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
func endingClass(e artifacts.Ending) string {
	switch {
	case e.Pass():
		return "ok"
	case len(e.Failed) > 0:
		return "bad"
	}
	return "warn"
}
