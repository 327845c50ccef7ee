package spawn

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// helperBin is the test server of testdata/helper, built once by TestMain.
var helperBin string

func TestMain(m *testing.M) {
	helperBin = testbin.MustBuild("./testdata/helper")
	goleak.VerifyTestMain(m, goleak.Cleanup(testbin.Exit))
}

// freeAddr returns a loopback address that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// procStat is the state and parent of a process, from /proc/PID/stat.
type procStat struct {
	pid, ppid int
	state     byte
}

func readProcs(t *testing.T) []procStat {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		t.Fatalf("listing /proc: %v", err)
	}
	var out []procStat
	for _, d := range dirs {
		b, err := os.ReadFile(d + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || i+4 >= len(b) {
			continue
		}
		var ps procStat
		ps.pid, _ = strconv.Atoi(filepath.Base(d))
		ps.state = b[i+2]
		fmt.Sscanf(string(b[i+4:]), "%d", &ps.ppid)
		out = append(out, ps)
	}
	return out
}

// assertNoZombies fails if a child of the test process is a zombie.
func assertNoZombies(t *testing.T) {
	t.Helper()
	me := os.Getpid()
	for _, p := range readProcs(t) {
		if p.ppid == me && p.state == 'Z' {
			t.Errorf("zombie child %d left", p.pid)
		}
	}
}

// assertGone waits up to a second until no live process has marker in
// its command line.
func assertGone(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		live := liveWith(t, marker)
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes with %q still running: %v", marker, live)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func liveWith(t *testing.T, marker string) []int {
	var live []int
	for _, p := range readProcs(t) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/cmdline")
		if err == nil && p.state != 'Z' && bytes.Contains(b, []byte(marker)) {
			live = append(live, p.pid)
		}
	}
	return live
}
