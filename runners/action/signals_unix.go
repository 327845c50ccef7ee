//go:build unix

package action

import "syscall"

var signals = map[string]syscall.Signal{
	"KILL": syscall.SIGKILL, "TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP,
	"INT": syscall.SIGINT, "USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2,
}
