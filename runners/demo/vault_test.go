package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// vaultReply is a /vault/read reply.
type vaultReply struct {
	Version int    `json:"version"`
	Value   string `json:"value"`
	Error   string `json:"error"`
}

func readVault(t *testing.T, url string) (int, vaultReply) {
	code, body := get(t, http.MethodGet, url, "")
	var r vaultReply
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Errorf("%s: %d %q: %v", url, code, body, err)
	}
	return code, r
}

// readDuringRotation reads every record with 4 readers while a rotation
// runs, and returns how many reads it made and how many returned a wrong
// value with 200 (torn).
func readDuringRotation(t *testing.T, base string) (reads, torn int64) {
	t.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	var nReads, nTorn atomic.Int64
	for w := range 4 {
		wg.Go(func() {
			for i := w; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				code, r := readVault(t, fmt.Sprintf("%s/vault/read?id=%d", base, i))
				nReads.Add(1)
				if code == http.StatusOK && r.Value != VaultSecret {
					nTorn.Add(1)
				}
			}
		})
	}
	code, body := get(t, http.MethodPost, base+"/vault/rotate?ms=300", "")
	close(done)
	wg.Wait()
	if code != http.StatusOK || !strings.Contains(body, `"version":2`) {
		t.Errorf("rotate: %d %q, want 200 and key 2", code, body)
	}
	return nReads.Load(), nTorn.Load()
}

// TestVaultRotationUnderReads: a rotation under 4 readers returns no torn
// value (each record resealed under its lock), and a reader holding only
// the old key gets a loud 409 once its record is resealed, never a wrong
// value; with the fault stale-seal the old key still unwraps; with the
// fault torn, reads during the rotation return wrong values with 200.
func TestVaultRotationUnderReads(t *testing.T) {
	srv, _ := faultyServer(t, "")
	if code, r := readVault(t, srv.URL+"/vault/read?id=3&key=1"); code != http.StatusOK || r.Value != VaultSecret || r.Version != 1 {
		t.Errorf("read with key 1 before the rotation: %d %+v", code, r)
	}
	reads, torn := readDuringRotation(t, srv.URL)
	if torn != 0 || reads < 20 {
		t.Errorf("%d of %d reads torn, want 0 of at least 20", torn, reads)
	}
	if code, r := readVault(t, srv.URL+"/vault/read?id=3&key=1"); code != http.StatusConflict || !strings.Contains(r.Error, "unwrap failed") {
		t.Errorf("read with the old key after the rotation: %d %+v, want a loud 409", code, r)
	}
	if code, r := readVault(t, srv.URL+"/vault/read?id=3"); code != http.StatusOK || r.Value != VaultSecret || r.Version != 2 {
		t.Errorf("read after the rotation: %d %+v, want the secret under key 2", code, r)
	}
	if code, body := get(t, http.MethodGet, srv.URL+"/vault/key", ""); code != http.StatusOK || !strings.Contains(body, `"version":2`) {
		t.Errorf("/vault/key: %d %q", code, body)
	}

	staleSrv, _ := faultyServer(t, "stale-seal")
	readDuringRotation(t, staleSrv.URL)
	if code, r := readVault(t, staleSrv.URL+"/vault/read?id=3&key=1"); code != http.StatusOK || r.Value != VaultSecret {
		t.Errorf("fault stale-seal: read with the old key after the rotation: %d %+v, want the secret (nothing resealed)", code, r)
	}

	tornSrv, _ := faultyServer(t, "torn")
	reads, torn = readDuringRotation(t, tornSrv.URL)
	if torn == 0 {
		t.Errorf("fault torn: 0 of %d reads torn during the rotation, want some", reads)
	}
}

// lagGauges scrapes url once and returns the two loop-lag gauges.
func lagGauges(t *testing.T, url string) (p99, most float64) {
	t.Helper()
	_, body := get(t, http.MethodGet, url, "")
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) float64 {
		f := families[name]
		if f == nil || len(f.Metric) != 1 {
			t.Fatalf("no %s in /metrics", name)
		}
		return f.Metric[0].GetGauge().GetValue()
	}
	return read("demo_loop_lag_p99_seconds"), read("demo_loop_lag_max_seconds")
}

// TestLoopLag: with Background running, /metrics reports the loop lag of
// the last whole second; the fault stall (8 spinners a P for 300 ms a
// second) makes a 10 ms timer run late by at least a few ms. Without
// Background, no lag is recorded (0).
func TestLoopLag(t *testing.T) {
	srv, h := faultyServer(t, "stall=300ms")
	if p99, most := lagGauges(t, srv.URL+"/metrics"); p99 != 0 || most != 0 {
		t.Errorf("before Background: p99 %g max %g, want 0", p99, most)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.Background(ctx); close(done) }()
	time.Sleep(2500 * time.Millisecond) // two stalls, so the last whole second had one
	second := time.Now().Truncate(time.Second)
	p99, most := lagGauges(t, srv.URL+"/metrics")
	cancel()
	<-done
	t.Logf("with stall=300ms: lag p99 %.2f ms, max %.2f ms", p99*1e3, most*1e3)
	if most < 0.005 || p99 > most {
		t.Errorf("with stall=300ms: lag p99 %g s, max %g s: want a max of at least 5 ms", p99, most)
	}
	// A scrape in the same whole second reads the same window; at load 23
	// the second scrape came in the next second, whose window held the
	// last timer the stopped loop had seen, 1.1 s late.
	p2, m2 := lagGauges(t, srv.URL+"/metrics")
	if time.Now().Truncate(time.Second).Equal(second) && (p2 != p99 || m2 != most) {
		t.Errorf("a second scrape of the same window: p99 %g max %g, want %g and %g", p2, m2, p99, most)
	}
}

func TestLoopLagPercentile(t *testing.T) {
	l := newLoopLag()
	for i := range 100 {
		l.record(time.Duration(i+1) * time.Millisecond)
	}
	if p99, most := l.read(); p99 != 0 || most != 0 {
		t.Errorf("before a window closed: p99 %g max %g, want 0", p99, most)
	}
	l.roll()
	p99, most := l.read()
	if p99 < 0.0985 || p99 > 0.0995 || most < 0.0999 || most > 0.1001 {
		t.Errorf("lags 1..100 ms: p99 %g max %g, want 0.099 and 0.1", p99, most)
	}
}
