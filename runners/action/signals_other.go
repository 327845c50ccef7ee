//go:build !unix

package action

import "syscall"

// signals are those the system knows of plan.Signals.
var signals = map[string]syscall.Signal{"KILL": syscall.SIGKILL, "TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP, "INT": syscall.SIGINT}
