// Package reap makes every process benchtui starts end with it, however
// it ends: a normal end, SIGTERM, SIGINT, SIGHUP or SIGKILL.
//
// Init, called once by main, gives benchtui a marker: a value of
// MarkerVar in the environment of everything it starts (the value it
// inherited, if any, with a fresh part added, so a benchtui started by
// another is in the other's tree too). On Linux it also makes benchtui a
// child subreaper, so a grandchild whose parent ended (a shell's child, a
// daemon that left its process group) becomes benchtui's child instead of
// init's, and reaps those orphans once they exit. Prepare, called before
// each start, starts the reaper once: a benchtui process (ReaperCommand)
// that holds one end of a pipe and, when benchtui is gone however it
// ended, kills every process that carries the marker. Sweep, at exit,
// ends what is left: every marked process and every child.
//
// OwnGroup and KillGroup put a command in a process group of its own and
// kill that group, on any Unix. Outside Linux the marker is set, and the
// subreaper, the reaper and Sweep do nothing.
package reap

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// MarkerVar is the environment variable that marks the processes a
// benchtui started.
const MarkerVar = "BENCHTUI_RUN"

// ReaperCommand is the hidden subcommand that runs the reaper (RunReaper).
const ReaperCommand = "__reaper"

// maxInherited bounds the inherited marker that is extended; a longer or
// odd one is dropped and a fresh one begins.
const maxInherited = 512

var marker string // this process's marker; "" until Init

// reaper is the reaper's state, once Prepare has run.
var reaper struct {
	mu      sync.Mutex
	started bool // Prepare ran: something was started
	pid     int  // 0 when it could not start (or outside Linux)
	err     error
}

// Init gives this process its marker, puts it in the environment (so
// every child started with the default or os.Environ's environment carries
// it) and, on Linux, makes it a child subreaper. main calls it once,
// before it starts anything; without it (a package's tests) Prepare and
// Sweep do nothing.
func Init() error {
	parent := os.Getenv(MarkerVar)
	if len(parent) > maxInherited || !validMarker(parent) {
		parent = ""
	}
	b := make([]byte, 12)
	_, _ = rand.Read(b) // crypto/rand never fails on supported systems
	own := fmt.Sprintf("%d-%s", os.Getpid(), hex.EncodeToString(b))
	if parent != "" {
		own = parent + "/" + own
	}
	if err := os.Setenv(MarkerVar, own); err != nil {
		return fmt.Errorf("setting %s: %w", MarkerVar, err)
	}
	marker = own
	return initOS()
}

// Marker is this process's marker value, "" before Init.
func Marker() string { return marker }

// Matches reports whether value (of MarkerVar in some process's
// environment) marks a process of this benchtui: its own marker, or one
// a benchtui it started extended.
func Matches(value string) bool {
	return marker != "" && (value == marker || strings.HasPrefix(value, marker+"/"))
}

// Env returns env with this process's marker as its last MarkerVar entry,
// so a plan's env cannot drop it; env unchanged before Init.
func Env(env []string) []string {
	if marker == "" {
		return env
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, MarkerVar+"=") {
			out = append(out, kv)
		}
	}
	return append(out, MarkerVar+"="+marker)
}

// Prepare starts the reaper, once, after Init: call it before starting a
// process. A reaper that could not start is reported by Sweep; the start
// goes on (only a SIGKILL of benchtui needs the reaper).
func Prepare() {
	if marker == "" {
		return
	}
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	if !reaper.started {
		reaper.started = true
		reaper.pid, reaper.err = startReaper()
	}
}

// reaperState is whether Prepare ran, and the reaper's pid and error.
func reaperState() (started bool, pid int, err error) {
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	return reaper.started, reaper.pid, reaper.err
}

// validMarker reports whether v is made of the bytes a marker has.
func validMarker(v string) bool {
	for _, c := range v {
		ok := c == '-' || c == '/' || c == '_' || c == '.' ||
			('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
		if !ok {
			return false
		}
	}
	return true
}

// Sweep ends what this benchtui started and is still running, after
// Init: SIGTERM to every marked process and every child (the reaper
// aside), SIGKILL to what is left after grace, then a wait of up to grace
// again. Its error tells of a reaper that could not start or a process
// that would not end. main calls it on the way out; when nothing was
// started (no Prepare) it has nothing to do.
func Sweep(grace time.Duration) error {
	started, pid, reaperErr := reaperState()
	if marker == "" || !started {
		return nil
	}
	err := sweepOS(grace, pid)
	if reaperErr != nil {
		err = errors.Join(fmt.Errorf("starting the reaper: %w", reaperErr), err)
	}
	return err
}
