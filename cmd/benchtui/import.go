package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/planimport"
)

// importKinds are the inputs of `benchtui import`.
var importKinds = []string{"har", "curl", "vegeta"}

// importFlagSet defines the flags of import into out.
func importFlagSet(out *string) *flag.FlagSet {
	fs := flagSet("import")
	fs.StringVar(out, "o", "", "write the plan to `FILE` (default: stdout)")
	return fs
}

// cmdImport writes a plan of the requests of a HAR file, a curl command
// line or vegeta's targets, their secrets as ${VARS}.
func cmdImport(_ context.Context, args []string, stdout, stderr io.Writer) int {
	var out string
	pos, err := parseInterspersed(importFlagSet(&out), args)
	if err != nil || len(pos) != 2 {
		fmt.Fprintln(stderr, "usage: benchtui import har FILE | curl 'curl …' | vegeta TARGETS [-o FILE]")
		return exitUsage
	}
	imp, err := readImport(pos[0], pos[1])
	if err != nil {
		fmt.Fprintln(stderr, "benchtui import:", plan.Printable(err.Error()))
		return exitUsage
	}
	var buf bytes.Buffer
	if err := planimport.Write(&buf, imp); err != nil {
		fmt.Fprintln(stderr, "benchtui import:", plan.Printable(err.Error()))
		return exitUsage
	}
	if out == "" {
		if _, err := stdout.Write(buf.Bytes()); err != nil {
			return exitFail
		}
		return exitOK
	}
	if err := artifacts.CheckReplaceable(out); err != nil {
		fmt.Fprintln(stderr, "benchtui import: -o:", plan.Printable(err.Error()))
		return exitUsage
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintln(stderr, "benchtui import:", plan.Printable(err.Error()))
		return exitFail
	}
	fmt.Fprintf(stderr, "benchtui import: wrote %s (%d requests); benchtui validate %s checks it\n",
		plan.Printable(out), len(imp.Requests), plan.Printable(out))
	return exitOK
}

// readImport reads the input of kind: a file (- for stdin) or, for curl,
// the command line itself.
func readImport(kind, input string) (*planimport.Imported, error) {
	switch kind {
	case "curl":
		return planimport.Curl(input)
	case "har", "vegeta":
		data, err := planimport.ReadInput(input, os.Stdin)
		if err != nil {
			return nil, err
		}
		if kind == "har" {
			return planimport.HAR(input, data)
		}
		return planimport.Vegeta(input, data)
	}
	return nil, fmt.Errorf("unknown input %q (want har, curl or vegeta)", kind)
}
