//go:build !linux

package main

import (
	"testing"
	"time"
)

// treeOf finds no processes outside Linux (no /proc).
func treeOf(*testing.T, string) []int { return nil }

// waitGone has nothing to wait for outside Linux.
func waitGone([]int, time.Duration) {}
