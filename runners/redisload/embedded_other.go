//go:build !unix

package redisload

import (
	"fmt"
	"runtime"
	"syscall"

	"github.com/benchtui/benchtui/runners/watch"
)

// Stubs of embedded_unix.go for systems without process groups and Unix
// signals (windows): StartEmbedded fails with errNoEmbedded.

var errNoEmbedded = fmt.Errorf("the embedded redis (`addr: embedded`) is %w on %s", watch.ErrUnsupported, runtime.GOOS)

func groupAttr() *syscall.SysProcAttr { return nil }

func kill(int, syscall.Signal) error { return errNoEmbedded }

func alive(int) bool { return true }
