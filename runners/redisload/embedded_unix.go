//go:build unix

package redisload

import (
	"syscall"

	"github.com/benchtui/benchtui/runners/reap"
)

// errNoEmbedded is nil: a Unix runs the embedded server.
var errNoEmbedded error

// groupAttr runs the server in its own process group.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// kill sends sig to pid.
func kill(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

// alive reports whether a process runs with that pid.
func alive(pid int) bool { return reap.Alive(pid) }
