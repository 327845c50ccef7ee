package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
	artreport "github.com/benchtui/benchtui/artifacts/report"
)

// exportFlags are run's files for CI, each written when the run ends,
// whatever way it ends: --export-json, --export-csv and --export-markdown
// (the outputs of --format json and csv, and a markdown report) and
// --junit (the checks as JUnit XML).
type exportFlags struct{ json, csv, markdown, junit string }

func (e *exportFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&e.json, "export-json", "", "also write the run summary of --format json to `FILE` (written however the run ends)")
	fs.StringVar(&e.csv, "export-csv", "", "also write the table of --format csv to `FILE` (written however the run ends)")
	fs.StringVar(&e.markdown, "export-markdown", "", "also write a markdown report of the run and its verdicts to `FILE` (written however the run ends)")
	fs.StringVar(&e.junit, "junit", "", "write the checks as JUnit XML to `FILE`: a testsuite per group, a testcase per check")
}

// exportFile is one file asked for: its flag, path and the output that
// fills it.
type exportFile struct {
	flag, path string
	// newOutput is the output filling the file; failOnLeak is run's
	// --fail-on-leak, for the outputs that judge the run.
	newOutput func(w *bytes.Buffer, failOnLeak bool) runOutput
}

// files are the files asked for, in the order of the flags.
func (e exportFlags) files() []exportFile {
	all := []exportFile{
		{"export-json", e.json, func(w *bytes.Buffer, _ bool) runOutput { return &jsonOutput{w: w} }},
		{"export-csv", e.csv, func(w *bytes.Buffer, _ bool) runOutput { return &csvOutput{w: w} }},
		{"export-markdown", e.markdown, func(w *bytes.Buffer, _ bool) runOutput { return &markdownOutput{w: w} }},
		{"junit", e.junit, func(w *bytes.Buffer, leak bool) runOutput { return &junitOutput{w: w, failOnLeak: leak} }},
	}
	var out []exportFile
	for _, f := range all {
		if f.path != "" {
			out = append(out, f)
		}
	}
	return out
}

// distinct refuses two flags naming one file.
func (e exportFlags) distinct() error {
	seen := map[string]string{}
	for _, f := range e.files() {
		abs, err := filepath.Abs(f.path)
		if err != nil {
			return fmt.Errorf("--%s: %w", f.flag, err)
		}
		if other, ok := seen[abs]; ok {
			return fmt.Errorf("--%s and --%s name the same file %s", other, f.flag, f.path)
		}
		seen[abs] = f.flag
	}
	return nil
}

// writable refuses, before the run, a file that could not be written at
// its end: in a folder that cannot be made or written, or where a link,
// device, FIFO or folder stands.
func (e exportFlags) writable() error {
	for _, f := range e.files() {
		if err := artifacts.CheckWritable(filepath.Dir(f.path)); err != nil {
			return fmt.Errorf("--%s: %w", f.flag, err)
		}
		if err := artifacts.CheckReplaceable(f.path); err != nil {
			return fmt.Errorf("--%s: %w", f.flag, err)
		}
	}
	return nil
}

// exportSet writes run's export files: it hands them each group as it
// ends and writes them all once, at the run's end or at a second
// interrupt, whichever comes first. Its methods are safe from any
// goroutine, and no-ops on a nil set.
type exportSet struct {
	mu    sync.Mutex
	files []exportWriter
	ended bool
}

// exportWriter is one export file and the output filling it.
type exportWriter struct {
	path string
	buf  *bytes.Buffer
	out  runOutput
}

// newExportSet returns the set writing e's files, for a run whose
// --fail-on-leak is failOnLeak; nil when no file is asked.
func newExportSet(e exportFlags, failOnLeak bool) *exportSet {
	files := e.files()
	if len(files) == 0 {
		return nil
	}
	s := &exportSet{}
	for _, f := range files {
		buf := &bytes.Buffer{}
		s.files = append(s.files, exportWriter{path: f.path, buf: buf, out: f.newOutput(buf, failOnLeak)})
	}
	return s
}

func (s *exportSet) group(r groupResult) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	for _, f := range s.files {
		f.out.group(r)
	}
}

// end writes every file, unless that is done; a file that cannot be
// written is an error naming it, the others are still written.
func (s *exportSet) end(cmp *compare.Comparison, code int, interrupted bool) error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return nil
	}
	s.ended = true
	var errs []error
	for _, f := range s.files {
		f.buf.Reset()
		err := f.out.end(cmp, code, interrupted)
		if err == nil {
			err = artifacts.WriteFileAtomic(f.path, f.buf.Bytes())
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("export %s: %w", f.path, err))
		}
	}
	return errors.Join(errs...)
}

// markdownOutput is --export-markdown: how the run ended, the markdown
// report of its artifacts (as `report` writes it) and the comparison
// with the baseline.
type markdownOutput struct {
	w      *bytes.Buffer
	groups []groupResult
}

func (o *markdownOutput) group(r groupResult) { o.groups = append(o.groups, r) }

func (o *markdownOutput) end(cmp *compare.Comparison, code int, interrupted bool) error {
	fmt.Fprintf(o.w, "benchtui run: **%s** (exit %d)\n", runStatus(code, interrupted), code)
	var arts []*artifacts.Artifact
	for _, r := range o.groups {
		switch {
		case r.artifact == nil:
			fmt.Fprintf(o.w, "\n- %s: did not run: %s", r.id, r.err)
		case r.err != "":
			fmt.Fprintf(o.w, "\n- %s: %s", r.id, r.err)
		}
		if r.artifact != nil {
			arts = append(arts, r.artifact)
		}
	}
	if len(arts) > 0 {
		fmt.Fprintf(o.w, "\n\n%s", artreport.Report(arts))
	}
	if cmp == nil {
		return nil
	}
	fmt.Fprint(o.w, "\n## Against the baseline\n\n")
	return artreport.Render(o.w, *cmp, artreport.FormatMarkdown)
}
