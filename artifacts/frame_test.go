package artifacts_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
)

// TestFramesSurviveKubectlLogs: three shards' frames, each line behind
// kubectl's --prefix, interleaved line by line with each other and with
// stderr lines (2 MiB ones too), read back equal to what was framed; a
// frame cut short or altered is an error naming it.
func TestFramesSurviveKubectlLogs(t *testing.T) {
	var pods [3][]string
	want := map[string]string{}
	for i := range pods {
		a := artifactstest.Artifact(fmt.Sprintf("g%d", i), artifactstest.T0, artifactstest.Step(rand.New(rand.NewPCG(1, uint64(i))), artifactstest.Spec{Label: "s", RPS: 100 + float64(i), P50: 1, P99: 9}))
		j, _ := json.Marshal(a)
		want[a.Group.ID] = string(j)
		var b bytes.Buffer
		if err := artifacts.WriteFramed(&b, a); err != nil {
			t.Fatal(err)
		}
		prefix := fmt.Sprintf("[pod/job-%d-x/shard] ", i)
		for _, l := range strings.SplitAfter(b.String(), "\n") {
			if l != "" {
				pods[i] = append(pods[i], prefix+l)
			}
		}
		pods[i] = append([]string{prefix + "rps 100 p99 9ms\n"}, pods[i]...)
		pods[i] = append(pods[i][:3], append([]string{prefix + "step 1/1 done: 1 error\n"}, pods[i][3:]...)...)
	}
	var log strings.Builder
	for k := 0; ; k++ {
		wrote := false
		for i := range pods {
			if k < len(pods[i]) {
				log.WriteString(pods[i][k])
				wrote = true
			}
		}
		if !wrote {
			break
		}
	}
	got, err := artifacts.ReadFramed(strings.NewReader(log.String()), "logs")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d artifacts read, want 3", len(got))
	}
	for _, a := range got {
		if j, _ := json.Marshal(a); string(j) != want[a.Group.ID] {
			t.Errorf("%s read back differs:\n%s\nwant\n%s", a.Group.ID, j, want[a.Group.ID])
		}
	}
	// A line far longer than any frame's (a pod's noisy stderr), inside
	// a frame and last without its newline, is skipped.
	long := "[pod/job-0-x/shard] " + strings.Repeat("y", 2<<20)
	mid := strings.Index(log.String(), "[pod/job-0-x/shard] H4sI")
	noisy := log.String()[:mid] + long + "\n" + log.String()[mid:] + long
	if got, err := artifacts.ReadFramed(strings.NewReader(noisy), "noisy"); err != nil || len(got) != 3 {
		t.Errorf("a log with 2 MiB lines: %d artifacts, %v; want 3", len(got), err)
	}
	cut := log.String()[:len(log.String())/2]
	if _, err := artifacts.ReadFramed(strings.NewReader(cut), "cut"); err == nil || !strings.Contains(err.Error(), "no end") {
		t.Errorf("a cut log: %v", err)
	}
	lines := strings.Split(log.String(), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "[pod/job-1-x/shard] H4sI") { // gzip's magic in base64
			lines[i] = strings.Replace(l, "H4sI", "H4sJ", 1)
		}
	}
	if _, err := artifacts.ReadFramed(strings.NewReader(strings.Join(lines, "\n")), "bad"); err == nil || !strings.Contains(err.Error(), "g1") {
		t.Errorf("an altered frame: %v", err)
	}
}
