//go:build !linux

package main

import (
	"testing"
	"time"
)

// treeOf finds no processes outside Linux (no /proc).
func treeOf(*testing.T, string) []int { return nil }

// processesUnder finds no processes outside Linux (no /proc).
func processesUnder(*testing.T, string, string) map[int]string { return nil }

// assertAllGone has nothing to check outside Linux.
func assertAllGone(*testing.T, map[int]string) {}

// waitGone has nothing to wait for outside Linux.
func waitGone([]int, time.Duration) {}
