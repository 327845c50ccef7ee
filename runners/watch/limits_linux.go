package watch

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// rmemMaxPath is the kernel's cap on a socket's receive buffer.
const rmemMaxPath = "/proc/sys/net/core/rmem_max"

// UDPBufferMax reads net.core.rmem_max, the largest receive buffer a UDP
// socket may ask for; compare it with QUICWantUDPBuffer.
func UDPBufferMax() (rmemMax int, err error) {
	b, err := os.ReadFile(rmemMaxPath)
	if err != nil {
		return 0, fmt.Errorf("reading net.core.rmem_max: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("parsing net.core.rmem_max: %w", err)
	}
	return n, nil
}
