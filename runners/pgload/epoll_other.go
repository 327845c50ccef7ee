//go:build !linux

package pgload

import (
	"errors"

	"github.com/benchtui/benchtui/runners"
)

func newEpollRunner(*runner) (runners.Runner, error) {
	return nil, errors.New("postgres client: epoll needs Linux")
}
