package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// version is set at build time with -ldflags "-X main.version=…"; without
// it, the module version the Go toolchain stamped (a pseudo-version for
// `go install …@commit`, "(devel)" for a local build).
var version = ""

// buildInfo is the tool's version and the VCS revision it was built from
// (with "+dirty" when the tree had changes), from debug.ReadBuildInfo.
func buildInfo() (ver, revision string) {
	ver = version
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return orDev(ver), ""
	}
	if ver == "" {
		ver = bi.Main.Version
	}
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if revision != "" && dirty {
		revision += "+dirty"
	}
	return orDev(ver), revision
}

func orDev(v string) string {
	if v = strings.TrimSpace(v); v == "" {
		return "dev"
	}
	return v
}

// cmdVersion prints "benchtui VERSION REVISION" (versionLine).
func cmdVersion(_ context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "usage: benchtui version")
		return exitUsage
	}
	fmt.Fprintln(stdout, versionLine(buildInfo()))
	return exitOK
}

// versionLine is "benchtui VERSION REVISION", or "benchtui VERSION" for a
// build without VCS data (no trailing space).
func versionLine(ver, revision string) string {
	return strings.TrimSpace("benchtui " + ver + " " + revision)
}
