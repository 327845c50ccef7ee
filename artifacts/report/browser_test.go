package report_test

import (
	"context"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/benchtui/benchtui/artifacts/report"
)

// chromium is the path of a Chromium or Chrome binary, "" when none is
// installed.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestReportHTMLInChromium opens the HTML report in headless Chromium, as
// a reader would, and wants no console error or exception and every chart
// drawn: a box of some size with at least one line of several points.
// With -update it also refreshes docs/report.png, a screenshot of the
// sweep's section. Skipped when no Chromium is installed (.ci/run
// installs it).
func TestReportHTMLInChromium(t *testing.T) {
	bin := chromium()
	if bin == "" {
		t.Skip("no chromium on PATH")
	}
	page := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(page, []byte(report.ReportHTML(reportFixture())), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t, bin)
	messages := chromedp.Console(ctx)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1100, 900), chromedp.Navigate("file://"+page)); err != nil {
		t.Fatal(err)
	}
	charts, err := chromedp.Run(ctx, chromedp.Evaluate[[][]float64](chartsJS))
	if err != nil {
		t.Fatal(err)
	}
	if got := consoleErrors(t, ctx, messages); len(got) > 0 {
		t.Errorf("console errors: %s", strings.Join(got, "; "))
	}
	if len(charts) != 8 {
		t.Errorf("%d charts drawn, want 8", len(charts))
	}
	for i, c := range charts {
		if c[0] < 100 || c[1] < 50 || c[2] < 1 {
			t.Errorf("chart %d: %gx%g px with %g lines of points: empty", i, c[0], c[1], c[2])
		}
	}
	if *update {
		screenshot(t, ctx)
	}
}

// screenshot writes docs/report.png: the sweep's section, as a reader
// sees it.
func screenshot(t *testing.T, ctx context.Context) {
	shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("section#G1")))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("..", "..", "docs", "report.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
}

// chartsJS measures every chart: its drawn width and height and how many
// of its polylines have two points or more.
const chartsJS = `Array.from(document.querySelectorAll('svg')).map(s => {
  const r = s.getBoundingClientRect();
  const lines = Array.from(s.querySelectorAll('polyline')).filter(p => p.points.numberOfItems > 1).length;
  return [r.width, r.height, lines];
})`

// browser starts headless Chromium for the test and stops it after; opts
// are further options (flags) of its own.
func browser(t *testing.T, bin string, more ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU)
	opts = append(opts, more...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 30*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}

// consoleErrors logs a marker and returns the console errors and
// uncaught exceptions the page gave before it.
func consoleErrors(t *testing.T, ctx context.Context, messages iter.Seq2[chromedp.ConsoleMessage, error]) []string {
	t.Helper()
	const marker = "benchtui-test-done"
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any]("console.log('"+marker+"')")); err != nil {
		t.Fatal(err)
	}
	var errs []string
	for m, err := range messages {
		if err != nil {
			t.Fatal(err)
		}
		if m.Text == marker {
			break
		}
		if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
			errs = append(errs, m.Text)
		}
	}
	return errs
}
