package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestJSONWritesAngleBracketsAsTheyAre: a group titled with <, > and &
// keeps them as written in `run --format json` and in its artifact, where
// encoding/json's default would write \u003c, \u003e and \u0026.
func TestJSONWritesAngleBracketsAsTheyAre(t *testing.T) {
	srv, _ := runnertest.CountingServer(t, time.Millisecond)
	const title = "p99 <= 5 ms & rps > 10"
	pl := writePlan(t, srv.URL, "    title: \""+title+"\"")
	out := t.TempDir()
	code, stdout, stderr := runCmd(t, cmdRun, pl, "-g", "closed", "--duration", "300ms", "-o", out, "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "closed-*.json"))
	if len(files) != 1 {
		t.Fatalf("artifacts %v, want one", files)
	}
	artifact, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for what, doc := range map[string]string{"run --format json": stdout, "the artifact": string(artifact)} {
		if !strings.Contains(doc, `"`+title+`"`) || strings.Contains(doc, `\u003c`) {
			t.Errorf("%s does not hold the title %q as it is:\n%s", what, title, doc)
		}
	}
}
