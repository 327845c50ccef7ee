package main

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// cmdValidate checks a plan and prints every problem, or ok with the
// group count.
func cmdValidate(_ context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(stderr, "usage: benchtui validate PLAN")
		return exitUsage
	}
	pl, err := loadPlan(args[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	printWarnings(stderr, remoteWarnings(pl))
	fmt.Fprintf(stdout, "ok: %s: %d groups\n", args[0], len(pl.Groups))
	return exitOK
}
