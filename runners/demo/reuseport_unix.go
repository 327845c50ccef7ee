//go:build unix

package demo

import (
	"context"
	"fmt"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// ListenReusePort listens on addr with SO_REUSEPORT, so that several
// processes serve one port, the kernel dealing the connections among them
// (demo-target --reuseport: a server past one process's open-files limit,
// as nginx's workers are).
func ListenReusePort(addr string) (net.Listener, error) {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
		}); err != nil {
			return err
		}
		return serr
	}}
	ln, err := lc.Listen(context.Background(), "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("demo http: listening on %s with SO_REUSEPORT: %w", addr, err)
	}
	return ln, nil
}
