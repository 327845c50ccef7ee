//go:build !unix

package demo

import (
	"errors"
	"net"
)

// ListenReusePort is Unix-only: SO_REUSEPORT is.
func ListenReusePort(string) (net.Listener, error) {
	return nil, errors.New("demo http: --reuseport needs a Unix system")
}
