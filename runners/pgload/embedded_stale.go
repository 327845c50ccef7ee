package pgload

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/benchtui/benchtui/runners/reap"
)

// embeddedRoot holds the clusters' folders: a short path, as a unix socket
// path must fit in 107 bytes.
const embeddedRoot = "/tmp"

// clusterPrefix starts the name of every embedded cluster's folder.
const clusterPrefix = "btpg"

// ownerPrefix names the folders of the clusters pid owns: "btpg<pid>-".
func ownerPrefix(pid int) string { return clusterPrefix + strconv.Itoa(pid) + "-" }

// folderOwner is the owner's pid in a cluster folder's name, 0 when the
// name is not one ownerPrefix made.
func folderOwner(name string) int {
	rest, ok := strings.CutPrefix(name, clusterPrefix)
	if !ok {
		return 0
	}
	digits, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0
	}
	pid, err := strconv.Atoi(digits)
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// cleanStale removes the cluster folders under root whose owning process
// is gone (a benchtui killed with SIGKILL cannot remove its own), after
// killing a postmaster still running in one. It is best effort: a folder
// left behind is no reason to fail a run. The initdb templates
// (templatePrefix) have no owner and are left; a template a dead process
// was building or discarding is in a folder of its own, and removed.
func cleanStale(root string) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range ents {
		owner := folderOwner(e.Name())
		if !e.IsDir() || owner == 0 || owner == os.Getpid() || reap.Alive(owner) {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if stopStalePostmaster(filepath.Join(dir, "data")) {
			_ = os.RemoveAll(dir)
		}
	}
}

// stopStalePostmaster kills the postmaster of dataDir, if one runs, and
// reports whether none runs any more. It kills only a process whose
// command line names dataDir, never one that reused the pid; without /proc
// to tell, a live one is left alone.
func stopStalePostmaster(dataDir string) bool {
	pid, err := readPIDFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil || !reap.Alive(pid) {
		return true
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !strings.Contains(string(cmdline), dataDir) {
		return false
	}
	_ = kill(pid, syscall.SIGKILL)
	return waitGone(pid, 5*time.Second)
}
