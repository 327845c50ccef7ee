//go:build !linux

package reap

import "time"

// Outside Linux there is no subreaper, no /proc to find the marked
// processes by and no parent-death signal: only the marker is set.

func initOS() error                    { return nil }
func startReaper() (int, error)        { return 0, nil }
func sweepOS(time.Duration, int) error { return nil }

// RunReaper has nothing to do here: no reaper is started.
func RunReaper() int { return 0 }
