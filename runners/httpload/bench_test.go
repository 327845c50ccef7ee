package httpload

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/flow"
)

// The lean client with a static body and with a templated one of the same
// length, against a loopback server: the templated path must keep at
// least 0.9 of the static one's throughput (docs/performance.md).
const (
	staticBody    = `{"id":"6f1c2a9e-3b7d-4c21-9a55-0e8d7f6b4c3a","seq":12345,"at":1764554400000}`
	templatedBody = `{"id":"{{uuid}}","seq":{{seq}},"at":{{now_ms}}}`
)

func BenchmarkLeanStaticBody(b *testing.B)    { benchmarkLean(b, "/items", staticBody) }
func BenchmarkLeanTemplatedBody(b *testing.B) { benchmarkLean(b, "/items", templatedBody) }
func BenchmarkLeanTemplatedURL(b *testing.B) {
	benchmarkLean(b, "/items/{{uuid}}?n={{seq}}", staticBody)
}

func benchmarkLean(b *testing.B, path, body string) {
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	defer srv.Close()
	r := NewRunner(&Spec{Requests: []Request{{Method: "POST", URL: srv.URL + path, Body: body}}})
	if r.err != nil || r.lean == nil {
		b.Fatalf("want the lean client: %v", r.err)
	}
	benchmarkWorker(b, r, nil)
}

// benchmarkWorker times one worker of r sending back to back.
func benchmarkWorker(b *testing.B, r *Runner, rec *runners.Recorder) {
	w, err := r.NewWorker(0, rec)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if out := w.Do(ctx); out.Err != "" {
			b.Fatal(out.Err)
		}
	}
}

// BenchmarkLeanFlow is a two-step flow over the lean client, the first
// step's reply header captured and sent by the second: per iteration, the
// captured value's copy is its allocation beyond the recorder's.
func BenchmarkLeanFlow(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Session", "6f1c2a9e-3b7d-4c21-9a55-0e8d7f6b4c3a")
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	defer srv.Close()
	r := NewRunner(&Spec{Flow: []Request{
		{Name: "open", Method: "POST", URL: srv.URL + "/open", Capture: map[string]flow.Capture{"s": {Header: "X-Session"}}},
		{Name: "use", Method: "POST", URL: srv.URL + "/use", Headers: map[string]string{"X-Session": "{{.s}}"}, Body: staticBody},
	}})
	if r.err != nil || r.lean == nil {
		b.Fatalf("want the lean client: %v", r.err)
	}
	benchmarkWorker(b, r, runners.NewRecorder())
}
