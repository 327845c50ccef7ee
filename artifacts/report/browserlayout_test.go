package report_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
	"github.com/benchtui/benchtui/artifacts/report"
)

// openReport writes the HTML report of arts and opens it in headless
// Chromium at a viewport of width × 900 px (a phone's, with its overlay
// scrollbars, when mobile), scrollbars shown as a reader sees them.
func openReport(t *testing.T, arts []*artifacts.Artifact, width int64, mobile bool) context.Context {
	t.Helper()
	bin := chromium()
	if bin == "" {
		t.Skip("no chromium on PATH")
	}
	page := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(page, []byte(report.ReportHTML(arts)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t, bin, chromedp.Flag("hide-scrollbars", false))
	var opts []chromedp.EmulateViewportOption
	if mobile {
		opts = append(opts, chromedp.EmulateMobile)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900, opts...), chromedp.Navigate("file://"+page)); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// TestReportTablesScrollOnAPhone opens the report on a 390 px phone: the
// page itself does not scroll sideways, and every table wider than the
// screen scrolls in a wrapper of its own that shows a scrollbar (a
// phone's overlay scrollbars show none until touched) and brings its
// last column (a figures table's Result) fully into view. The tables stay
// tables (display: table), not blocks.
func TestReportTablesScrollOnAPhone(t *testing.T) {
	ctx := openReport(t, reportFixture(), 390, true)
	type tableLayout struct {
		Display, Overflow, LastColumn string
		TableW, BoxW, Scrollbar       float64
		LastRight, BoxRight           float64
	}
	type pageLayout struct {
		ScrollW, ViewW float64
		Tables         []tableLayout
	}
	page, err := chromedp.Run(ctx, chromedp.Evaluate[pageLayout](tablesJS))
	if err != nil {
		t.Fatal(err)
	}
	if page.ScrollW > page.ViewW {
		t.Errorf("the page is %g px wide on a %g px screen: it scrolls sideways", page.ScrollW, page.ViewW)
	}
	wide := 0
	for i, tb := range page.Tables {
		if tb.Display != "table" {
			t.Errorf("table %d is displayed as %q, not a table", i, tb.Display)
		}
		if tb.TableW <= tb.BoxW+1 {
			continue
		}
		wide++
		if tb.Overflow != "auto" && tb.Overflow != "scroll" || tb.Scrollbar < 4 || tb.LastRight > tb.BoxRight+1 {
			t.Errorf("table %d (%g px in %g px, last column %q): overflow-x %q, scrollbar %g px, scrolled to the end its last column ends at %g px, the box at %g px",
				i, tb.TableW, tb.BoxW, tb.LastColumn, tb.Overflow, tb.Scrollbar, tb.LastRight, tb.BoxRight)
		}
	}
	t.Logf("%d of %d tables wider than the phone", wide, len(page.Tables))
	if wide == 0 {
		t.Error("no table wider than a phone: the test shows nothing")
	}
}

// tablesJS measures the page's width and, for every table, its box (its
// parent) before and after scrolling it to the end.
const tablesJS = `(() => {
  const tables = Array.from(document.querySelectorAll('table')).map(t => {
    const box = t.parentElement;
    const ths = t.querySelectorAll('tr:first-child > *');
    const last = ths[ths.length - 1];
    box.scrollLeft = box.scrollWidth;
    return {Display: getComputedStyle(t).display, Overflow: getComputedStyle(box).overflowX, LastColumn: last.textContent,
      TableW: t.getBoundingClientRect().width, BoxW: box.clientWidth, Scrollbar: box.offsetHeight - box.clientHeight,
      LastRight: last.getBoundingClientRect().right, BoxRight: box.getBoundingClientRect().left + box.clientLeft + box.clientWidth};
  });
  return {ScrollW: document.documentElement.scrollWidth, ViewW: window.innerWidth, Tables: tables};
})()`

// TestChartTextDoesNotOverlap opens the report with a run of 25,000
// ops/s beside the fixture's (wide tick labels on the throughput axis)
// and wants no two texts of a chart to overlap: the y axis title clear
// of every tick label, the top one included.
func TestChartTextDoesNotOverlap(t *testing.T) {
	fast := artifactstest.Step(rand.New(rand.NewPCG(3, 3)), artifactstest.Spec{RPS: 25000, P50: 0.4, P99: 2, CV: 0.05})
	arts := append(reportFixture(), artifactstest.Artifact("G9", artifactstest.T0, fast))
	ctx := openReport(t, arts, 1100, false)
	overlaps, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](overlapJS))
	if err != nil {
		t.Fatal(err)
	}
	if len(overlaps) > 0 {
		t.Errorf("texts overlap:\n%s", strings.Join(overlaps, "\n"))
	}
}

// overlapJS lists every pair of texts of a chart whose boxes overlap by
// more than half a pixel each way, as "chart: «a» over «b»".
const overlapJS = `Array.from(document.querySelectorAll('svg')).flatMap(s => {
  const texts = Array.from(s.querySelectorAll('text')).map(e => [e.textContent, e.getBoundingClientRect()]);
  const out = [];
  texts.forEach(([a, r], i) => texts.slice(i + 1).forEach(([b, q]) => {
    const w = Math.min(r.right, q.right) - Math.max(r.left, q.left), h = Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top);
    if (w > 0.5 && h > 0.5) out.push(s.getAttribute('aria-label') + ': «' + a + '» over «' + b + '»');
  }));
  return out;
})`
