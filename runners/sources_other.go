//go:build !linux

package runners

import "syscall"

// bindNoPort does nothing off Linux: IP_BIND_ADDRESS_NO_PORT is Linux's.
func bindNoPort(string, string, syscall.RawConn) error { return nil }
