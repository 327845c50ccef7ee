package main

import (
	"context"
	"io"
)

// cmdConsole opens the interactive console on PLAN. Until the console
// lands it runs the plan headless.
func cmdConsole(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return cmdRun(ctx, args, stdout, stderr)
}
