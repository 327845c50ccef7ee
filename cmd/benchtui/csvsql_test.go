package main

import (
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestCSVColumnsNeedNoQuotesInSQL imports `run --format csv` into SQLite
// (its sqlite3 shell) and selects every column by its name unquoted, as a
// DuckDB or SQLite user types it: no column may be an SQL keyword (the
// first was "group"; it is group_id). Skipped without sqlite3.
func TestCSVColumnsNeedNoQuotesInSQL(t *testing.T) {
	sqlite, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("no sqlite3 on PATH")
	}
	srv, _ := runnertest.CountingServer(t, time.Millisecond)
	code, stdout, stderr := runCmd(t, cmdRun, writePlan(t, srv.URL, ""), "-g", "closed", "--duration", "300ms",
		"-o", t.TempDir(), "--format", "csv")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	file := filepath.Join(t.TempDir(), "summary.csv")
	if err := os.WriteFile(file, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	header, err := csv.NewReader(strings.NewReader(stdout)).Read()
	if err != nil || header[0] != "group_id" {
		t.Fatalf("header %v (%v): want group_id first", header, err)
	}
	query := "SELECT " + strings.Join(header, ", ") + " FROM summary"
	out, err := exec.Command(sqlite, "-csv", ":memory:", ".import --csv "+file+" summary", query).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "closed,") {
		t.Errorf("sqlite3 %q: %v\n%s", query, err, out)
	}
}
