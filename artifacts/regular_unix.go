//go:build unix

package artifacts

import "syscall"

// openNonBlock makes opening a FIFO return at once.
const openNonBlock = syscall.O_NONBLOCK
