package orchestrate_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/httpload"
	"github.com/benchtui/benchtui/runners/orchestrate"
	"github.com/benchtui/benchtui/runners/runnertest"
)

var registry = runners.MustRegistry(httpload.Kind())

// session starts a session of one http group against a loopback server
// that counts what it served, running for duration.
func session(t *testing.T, k *orchestrate.Keeper, duration string) *engine.Session {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("pong")) }))
	t.Cleanup(srv.Close)
	pl := runnertest.ParsePlan(t, registry, "version: 1\ngroups:\n  - id: ping\n    runner: http\n"+
		"    http: {requests: [{url: \""+srv.URL+"/ping\"}]}\n    load: {concurrency: 2}\n    duration: "+duration+"\n", nil)
	run := engine.NewRun(pl, registry, k.Dir(), "test")
	t.Cleanup(run.Close)
	sess, err := k.Start(context.Background(), run, pl.Groups[0])
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

// files are the artifacts in dir, and any temporary file left there
// (interval logs beside the artifacts are neither).
func files(t *testing.T, dir string) (arts, temp []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch {
		case strings.HasPrefix(e.Name(), "."):
			temp = append(temp, e.Name())
		case filepath.Ext(e.Name()) == ".json":
			arts = append(arts, e.Name())
		}
	}
	return arts, temp
}

// The session's end, a quit and a signal may all ask for the final
// artifact at once: it is written exactly once, and every ask gets that
// write.
func TestFinalArtifactIsWrittenOnceWhoeverAsks(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	writes := 0
	k := orchestrate.New(dir, func(orchestrate.Stored) { mu.Lock(); writes++; mu.Unlock() })
	sess := session(t, k, "300ms")
	var wg sync.WaitGroup
	got := make([]orchestrate.Stored, 8)
	for i := range got {
		wg.Go(func() {
			if i%2 == 0 {
				got[i] = k.Final(sess)
				return
			}
			<-sess.Done()
			if s := k.Shutdown("quit", time.Second); len(s) == 1 {
				got[i] = s[0]
			} else {
				got[i] = k.Final(sess) // another ask wrote it first
			}
		})
	}
	wg.Wait()
	if writes != 1 {
		t.Fatalf("%d final writes, want 1", writes)
	}
	for i, s := range got {
		if s.Err != nil || s.Path != got[0].Path || s.Artifact != got[0].Artifact {
			t.Errorf("ask %d got %+v, want the one write %s", i, s, got[0].Path)
		}
	}
	a, err := artifacts.Load(got[0].Path)
	if err != nil || a.Run.Partial || a.Steps[0].Requests == 0 {
		t.Fatalf("artifact %v partial=%v: want a whole run with requests", err, a != nil && a.Run.Partial)
	}
	if e := k.Entries(); len(e) != 1 || !e[0].Written || k.Pending() != 0 {
		t.Errorf("entries %+v pending %d", e, k.Pending())
	}
}

// A shutdown stops what still runs and writes it partial, with the
// reason as the stopped event; an interim export before it is no final
// write; Hold keeps the writer, so no write starts after it.
func TestShutdownWritesPartialAndHoldStopsWrites(t *testing.T) {
	dir := t.TempDir()
	k := orchestrate.New(dir, nil)
	sess := session(t, k, "30s")
	for snap := range sess.Snapshots() {
		if snap.Phase == engine.PhaseMeasure && snap.Total.Requests > 0 {
			break
		}
	}
	if s := k.Interim(sess); s.Err != nil || k.Pending() != 1 {
		t.Fatalf("interim %+v, pending %d: want a write that leaves the session pending", s, k.Pending())
	}
	stored := k.Shutdown("console panic", 5*time.Second)
	if len(stored) != 1 || stored[0].Err != nil {
		t.Fatalf("shutdown wrote %+v", stored)
	}
	a, err := artifacts.Load(stored[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	evs := a.Steps[0].Events
	if !a.Run.Partial || len(evs) == 0 || evs[len(evs)-1].Note != "console panic" {
		t.Errorf("partial=%v events %+v, want partial, stopped by console panic", a.Run.Partial, evs)
	}
	if again := k.Shutdown("again", time.Second); len(again) != 0 {
		t.Errorf("a second shutdown rewrote %+v", again)
	}
	late := session(t, k, "100ms")
	<-late.Done()
	k.Hold(nil)
	wrote := make(chan struct{})
	go func() { k.Final(late); close(wrote) }()
	select {
	case <-wrote:
		t.Fatal("a final write started after Hold")
	case <-time.After(300 * time.Millisecond):
	}
	if arts, temp := files(t, dir); len(arts) != 1 || len(temp) != 0 {
		t.Errorf("artifacts %v, temporary files %v: want the one artifact and none left half-written", arts, temp)
	}
}
