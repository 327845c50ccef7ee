//go:build unix

package pgload

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// errNoEmbedded is nil: a Unix runs the embedded cluster.
var errNoEmbedded error

// credential is the user the cluster's programs run as.
type credential = syscall.Credential

// groupAttr runs a program of the cluster in its own process group, as
// cred when not nil.
func groupAttr(cred *credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Credential: cred}
}

// kill sends sig to pid.
func kill(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

// serverCredential is who the cluster runs as: nil (ourselves), or the
// postgres OS user when we are root.
func serverCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, the embedded postgres needs a `postgres` OS user "+
			"(initdb refuses root; `apt-get install postgresql` creates it): %w", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("reading the postgres user's ids: %w", err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
}

// noFollow makes an open fail on a symbolic link.
const noFollow = syscall.O_NOFOLLOW

// privateDir returns path's information, failing unless path is a folder
// (not a symbolic link) owned by our effective user that no one else may
// write to.
func privateDir(path string) (fs.FileInfo, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !st.IsDir() || !ok || int(sys.Uid) != os.Geteuid() || st.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("%w: %s is not a folder of ours alone", errCorruptTemplate, path)
	}
	return st, nil
}
