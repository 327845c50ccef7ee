//go:build !linux

package httpload

import (
	"errors"

	"github.com/benchtui/benchtui/runners"
)

// epollSupported says whether client: epoll runs here: Linux only.
const epollSupported = false

func newEpollRunner(*Runner) (runners.Runner, error) {
	return nil, errors.New("client: epoll needs Linux")
}
