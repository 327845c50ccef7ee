package testbin

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// FreeAddr returns a loopback address that was free a moment ago, for a
// helper binary to listen on.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// FreeUDPAddr returns a loopback UDP address that was free a moment ago,
// for a QUIC server to listen on.
func FreeUDPAddr(t testing.TB) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free UDP port: %v", err)
	}
	addr := pc.LocalAddr().String()
	pc.Close()
	return addr
}

// Proc is the state and parent of a process, from /proc/PID/stat.
type Proc struct {
	PID, PPID int
	State     byte
}

// Procs lists the processes of the machine (Linux only).
func Procs(t testing.TB) []Proc {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		t.Fatalf("listing /proc: %v", err)
	}
	var out []Proc
	for _, d := range dirs {
		b, err := os.ReadFile(d + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || i+4 >= len(b) {
			continue
		}
		var p Proc
		p.PID, _ = strconv.Atoi(filepath.Base(d))
		p.State = b[i+2]
		fmt.Sscanf(string(b[i+4:]), "%d", &p.PPID)
		out = append(out, p)
	}
	return out
}

// AssertNoZombies fails t if a child of the test process is a zombie.
func AssertNoZombies(t testing.TB) {
	t.Helper()
	me := os.Getpid()
	for _, p := range Procs(t) {
		if p.PPID == me && p.State == 'Z' {
			t.Errorf("zombie child %d left", p.PID)
		}
	}
}

// DeadPID returns the pid of a process that has exited and been reaped.
func DeadPID(t testing.TB) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
