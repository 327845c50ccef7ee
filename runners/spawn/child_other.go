//go:build !unix

package spawn

import (
	"fmt"
	"runtime"
	"syscall"

	"github.com/benchtui/benchtui/runners/watch"
)

// Stubs of child_unix.go for systems without process groups (windows):
// Prepare fails with errNoGroups, which wraps watch.ErrUnsupported.

// errNoGroups says why the runner cannot run here.
var errNoGroups = fmt.Errorf("starting commands in their own process group is %w on %s", watch.ErrUnsupported, runtime.GOOS)

var unixSignalNames map[syscall.Signal]string

func forkGroup(*proc) (int, error) { return 0, errNoGroups }

// waitExit and killGroup are never reached: no child is ever started.
func waitExit(int) syscall.WaitStatus { return syscall.WaitStatus{} }
func killGroup(int, syscall.Signal)   {}
