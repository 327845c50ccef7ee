package main

import (
	"strings"
	"testing"
)

// TestVersionLine: `benchtui version` ends its line right after the last
// word, with a revision or without one (a build without VCS data, as
// this test binary is).
func TestVersionLine(t *testing.T) {
	for _, c := range []struct{ ver, rev, want string }{
		{"v1.2.3", "abc123+dirty", "benchtui v1.2.3 abc123+dirty"},
		{"v1.2.3", "", "benchtui v1.2.3"},
	} {
		if got := versionLine(c.ver, c.rev); got != c.want {
			t.Errorf("versionLine(%q, %q) = %q, want %q", c.ver, c.rev, got, c.want)
		}
	}
	code, stdout, _ := runMain(t, "version")
	ver, rev := buildInfo()
	if code != exitOK || strings.HasSuffix(stdout, " \n") || stdout != versionLine(ver, rev)+"\n" {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
}
