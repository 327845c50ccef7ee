package watch

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// FDCostPerUnit is the fds a server spends per SSE subscriber or held
// connection, as measured in the seed reports (1.41 measured, 1.5
// budgeted; an earlier estimate of 64 was off by 4,000%). doctor uses it to
// tell whether a plan's unit count fits an fd limit.
const FDCostPerUnit = 1.5

// QUICWantUDPBuffer is the UDP receive (and send) buffer a QUIC endpoint
// (quic-go) asks for, 7 MiB. With a smaller net.core.rmem_max it warns and
// loses packets under load; raise the limits (as root) with
//
//	sysctl -w net.core.rmem_max=7500000 net.core.wmem_max=7500000
const QUICWantUDPBuffer = 7 << 20

// RaiseFDLimit sets the soft RLIMIT_NOFILE of benchtui's process to its hard
// limit, so a load of many connections is not cut at 1024. The Go runtime
// (1.19+) already does so at start, so raised is usually false; children
// started by os/exec get the original soft limit back.
func RaiseFDLimit() (soft, hard uint64, raised bool, err error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, 0, false, fmt.Errorf("reading the fd limit: %w", err)
	}
	if lim.Cur >= lim.Max {
		return lim.Cur, lim.Max, false, nil
	}
	want := lim
	want.Cur = lim.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want); err != nil {
		return lim.Cur, lim.Max, false, fmt.Errorf("raising the fd limit from %d to %d: %w", lim.Cur, lim.Max, err)
	}
	return want.Cur, want.Max, true, nil
}

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
