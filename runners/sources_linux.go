package runners

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// bindNoPort sets IP_BIND_ADDRESS_NO_PORT on a socket bound to a source
// address, so that the kernel picks its port at connect(2), per server
// address and port, not at bind(2) for every destination at once.
func bindNoPort(network, _ string, c syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" && network != "tcp" {
		return nil
	}
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_BIND_ADDRESS_NO_PORT, 1)
	})
	if err != nil {
		return err
	}
	return serr
}
