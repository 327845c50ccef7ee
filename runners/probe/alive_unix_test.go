//go:build unix

package probe

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// alive reports whether pid runs: a zombie, where /proc shows one, has
// exited (only its parent's reaping is missing).
func alive(pid int) bool {
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		i := bytes.LastIndexByte(b, ')')
		return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
	}
	return syscall.Kill(pid, 0) == nil
}
