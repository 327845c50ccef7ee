package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/benchtui/benchtui/artifacts"
)

// cmdReport implements `benchtui report ARTIFACT...|DIR [--format
// markdown|html] [-o FILE]`: every artifact of the files and folders named,
// one section per group, a before/after table where a group ran more than
// once. It writes to stdout, or atomically to FILE with -o. It exits 2 when
// an input cannot be read, the output cannot be written, or on bad usage.
func cmdReport(_ context.Context, args []string, stdout, stderr io.Writer) int {
	var format, out string
	fs := reportFlagSet(&format, &out)
	fs.SetOutput(stderr)
	pos, err := parseInterspersed(fs, args)
	if err == nil {
		err = reportTo(pos, format, out, stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "benchtui report:", err)
		return exitUsage
	}
	return exitOK
}

// reportFormats are the values of report --format.
var reportFormats = []string{artifacts.FormatMarkdown, artifacts.FormatHTML}

// reportFlagSet defines the flags of report into format and out.
func reportFlagSet(format, out *string) *flag.FlagSet {
	fs := flagSet("report")
	fs.StringVar(format, "format", artifacts.FormatMarkdown, "output `format`: markdown or html")
	fs.StringVar(out, "o", "", "write the report to `FILE` instead of stdout")
	return fs
}

func reportTo(paths []string, format, out string, stdout io.Writer) error {
	if len(paths) == 0 {
		return errors.New("want at least one ARTIFACT or DIR")
	}
	var render func([]*artifacts.Artifact) string
	switch format {
	case artifacts.FormatMarkdown, "md":
		render = artifacts.Report
	case artifacts.FormatHTML:
		render = artifacts.ReportHTML
	default:
		return fmt.Errorf("unknown --format %q (want markdown or html)", format)
	}
	arts, err := artifacts.LoadAll(paths...)
	if err != nil {
		return err
	}
	if len(arts) == 0 {
		return fmt.Errorf("no artifacts in %v", paths)
	}
	doc := render(arts)
	if out != "" {
		return artifacts.WriteFileAtomic(out, []byte(doc))
	}
	_, err = io.WriteString(stdout, doc)
	return err
}
