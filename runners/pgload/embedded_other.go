//go:build !unix

package pgload

import (
	"fmt"
	"io/fs"
	"runtime"
	"syscall"

	"github.com/benchtui/benchtui/runners/watch"
)

// Stubs of embedded_unix.go for systems without process groups, Unix
// signals and credentials (windows): StartEmbedded fails with errNoEmbedded.

var errNoEmbedded = fmt.Errorf("the embedded postgres (`dsn: embedded`) is %w on %s", watch.ErrUnsupported, runtime.GOOS)

type credential struct{ Uid, Gid uint32 }

func groupAttr(*credential) *syscall.SysProcAttr { return nil }

func kill(int, syscall.Signal) error { return errNoEmbedded }

func serverCredential() (*credential, error) { return nil, errNoEmbedded }

const noFollow = 0

func privateDir(string) (fs.FileInfo, error) { return nil, errNoEmbedded }
