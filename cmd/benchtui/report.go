package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
	artreport "github.com/benchtui/benchtui/artifacts/report"
)

// cmdReport implements `benchtui report ARTIFACT...|DIR [--format
// markdown|html|benchstat] [-o FILE]` and `report --percentiles ARTIFACT...|DIR [-o DIR]`:
// every artifact of the files and folders named,
// one section per group, a before/after table where a group ran more than
// once; with --format benchstat, the samples compare judges of the newest
// artifact of each group, in the Go benchmark format. It writes to stdout, or atomically to FILE with -o (a regular file
// or a new one: never a link, device or FIFO). With --percentiles it writes
// HdrHistogram Java's percentile distribution (.hgrm) of the one step named to
// stdout (or the file -o FILE.hgrm), or one "<artifact>-step<N>.hgrm" per step into the folder -o names. It exits 2 when
// an input cannot be read, the output cannot be written, or on bad usage.
func cmdReport(_ context.Context, args []string, stdout, stderr io.Writer) int {
	var o reportOptions
	fs := reportFlagSet(&o)
	fs.SetOutput(stderr)
	pos, err := parseInterspersed(fs, args)
	if err == nil {
		err = reportTo(pos, o, stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "benchtui report:", err)
		return exitUsage
	}
	return exitOK
}

// formatBenchstat is report's --format for the Go benchmark format:
// compare's samples, one line each, as benchstat reads them.
const formatBenchstat = "benchstat"

// reportFormats are the values of report --format.
var reportFormats = []string{artreport.FormatMarkdown, artreport.FormatHTML, formatBenchstat}

// reportOptions are the flags of report.
type reportOptions struct {
	format, out string
	percentiles bool
}

// reportFlagSet defines the flags of report into o.
func reportFlagSet(o *reportOptions) *flag.FlagSet {
	fs := flagSet("report")
	fs.StringVar(&o.format, "format", artreport.FormatMarkdown, "output `format`: markdown, html or benchstat (compare's samples in the Go benchmark format)")
	fs.StringVar(&o.out, "o", "", "write the report to `FILE` instead of stdout (with --percentiles: a folder, one .hgrm per step, or one step's FILE.hgrm)")
	fs.BoolVar(&o.percentiles, "percentiles", false, "instead of the report, HdrHistogram Java's percentile distribution (.hgrm, ms): one step's to stdout, or with -o DIR <artifact>-step<N>.hgrm per step")
	return fs
}

func reportTo(paths []string, o reportOptions, stdout io.Writer) error {
	if len(paths) == 0 {
		return errors.New("want at least one ARTIFACT or DIR")
	}
	render, err := reportRenderer(o)
	if err != nil {
		return err
	}
	arts, err := artifacts.LoadAll(paths...)
	if err != nil {
		return err
	}
	if len(arts) == 0 {
		return fmt.Errorf("no artifacts in %v", paths)
	}
	if o.percentiles && o.out != "" && !strings.HasSuffix(o.out, ".hgrm") {
		return writePercentileFiles(o.out, arts, stdout)
	}
	doc, err := render(arts)
	if err != nil {
		return err
	}
	if o.out != "" {
		return artifacts.WriteFileAtomic(o.out, []byte(doc))
	}
	_, err = io.WriteString(stdout, doc)
	return err
}

// reportRenderer is the renderer o asks for.
func reportRenderer(o reportOptions) (func([]*artifacts.Artifact) (string, error), error) {
	plain := func(f func([]*artifacts.Artifact) string) func([]*artifacts.Artifact) (string, error) {
		return func(a []*artifacts.Artifact) (string, error) { return f(a), nil }
	}
	written := func(f func(io.Writer, []*artifacts.Artifact) error) func([]*artifacts.Artifact) (string, error) {
		return func(a []*artifacts.Artifact) (string, error) {
			var b strings.Builder
			err := f(&b, a)
			return b.String(), err
		}
	}
	switch {
	case o.percentiles && o.format != artreport.FormatMarkdown:
		return nil, fmt.Errorf("--percentiles prints a text distribution; it takes no --format %s", o.format)
	case o.percentiles:
		return written(artreport.WritePercentiles), nil
	case o.format == artreport.FormatMarkdown, o.format == "md":
		return plain(artreport.Report), nil
	case o.format == artreport.FormatHTML:
		return plain(artreport.ReportHTML), nil
	case o.format == formatBenchstat:
		return written(compare.WriteBenchfmt), nil
	}
	return nil, fmt.Errorf("unknown --format %q (want markdown, html or benchstat)", o.format)
}

// writePercentileFiles writes one .hgrm per step of arts into dir and
// names on out each file written and each step passed over.
func writePercentileFiles(dir string, arts []*artifacts.Artifact, out io.Writer) error {
	written, skipped, err := artreport.WritePercentileFiles(dir, arts)
	for _, name := range written {
		fmt.Fprintf(out, "wrote %s\n", filepath.Join(dir, name))
	}
	for _, name := range skipped {
		fmt.Fprintf(out, "no histogram, not written: %s\n", name)
	}
	return err
}
