package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/livemerge"
)

// TestWatchPrintsHostileLogsClean: `watch DIR --once` over shard logs
// holding a live line with escape sequences in its texts, lines with
// negative counts, with counts whose sum overflows and with NaN times, and
// a FIFO named like a log, ends at once and prints no control byte and no
// negative or overflowed figure: the escapes are escaped, the impossible
// lines left out.
func TestWatchPrintsHostileLogsClean(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	line := func(shard int, label string, requests, errors int64) string {
		l := livemerge.Line{Version: 1, RunID: "r", Shard: shard, Count: 2, Group: "g\x1b]0;pwned\a", Step: 1, Steps: 1,
			Label: label, Phase: "measure", At: time.Unix(100, 0), Elapsed: 1, Requests: requests, Errors: errors}
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	logs := map[string]string{
		"shard-0.log": line(0, "c=1\x1b[2J\r", 10, 1),
		"shard-1.log": line(1, "c=1", -5, 0) + line(1, "c=1", 1<<62, 0) + line(1, "c=1", 3, 4) +
			strings.Replace(line(1, "c=1", 3, 0), `"elapsed_s":1`, `"elapsed_s":-1`, 1),
	}
	for name, body := range logs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := mkfifo(filepath.Join(dir, "shard-2.log")); err != nil {
		t.Logf("without the FIFO: %v", err)
	}
	code, out, errOut := runWithin(t, 10*time.Second, cmdWatch, dir, "--once") // a FIFO would hang it
	all := out + errOut
	if i := strings.IndexFunc(all, func(c rune) bool { return c < 0x20 && c != '\n' || c == 0x7f }); i >= 0 {
		t.Errorf("output holds control byte %q:\n%q", all[i], all)
	}
	if code != exitOK || !strings.Contains(out, `g\x1b]0;pwned\a step 1/1 c=1\x1b[2J\r measure`) || !strings.Contains(out, "shards 1/2 requests 10 ") {
		t.Errorf("exit %d, want shard 0's line alone, escaped:\n%s%s", code, out, errOut)
	}
	if neg := regexp.MustCompile(`(requests|errors|dropped|in-flight|rps) -`).FindString(out); neg != "" {
		t.Errorf("a negative figure %q:\n%s", neg, out)
	}
}
