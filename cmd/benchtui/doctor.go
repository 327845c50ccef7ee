package main

import (
	"context"
	"fmt"
	"io"
)

// cmdDoctor checks the machine against a plan's needs.
func cmdDoctor(_ context.Context, _ []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "benchtui doctor: not built yet")
	return exitUsage
}
