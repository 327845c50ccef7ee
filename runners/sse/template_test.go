package sse

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// templateServer holds every stream open after one event and keeps each
// connect's query and X-V header.
func templateServer(t *testing.T) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.RawQuery+" "+r.Header.Get("X-V"))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: x\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), seen...) }
}

// TestConnectTemplates: each subscriber's connect renders its own URL and
// headers ({{seq}} numbers the group's connects: 1 to 5, once each); a
// header that renders a CR/LF is an error of kind template and never
// connects.
func TestConnectTemplates(t *testing.T) {
	srv, seen := templateServer(t)
	runnertest.RunPlan(t, testRegistry, fmt.Sprintf(`version: 1
groups:
  - id: tpl
    runner: sse
    sse: {url: "%s/events?sub={{uuid}}&n={{seq}}", subscribers: 5, headers: {X-V: '{{rand_choice "ok"}}'}}
    duration: 1s
`, srv.URL), nil)
	distinct, numbers := map[string]bool{}, map[int]bool{}
	for _, s := range seen() {
		var sub, v string
		var n int
		if _, err := fmt.Sscanf(s, "sub=%36s&n=%d %s", &sub, &n, &v); err != nil || n < 1 || n > 5 || v != "ok" {
			t.Errorf("a connect carried %q, want sub=<uuid>&n=<1 to 5> ok (%v)", s, err)
		}
		distinct[sub], numbers[n] = true, true
	}
	if len(distinct) != 5 || len(numbers) != 5 {
		t.Errorf("%d distinct subscriber ids, %d numbers, want 5 of each: %v", len(distinct), len(numbers), seen())
	}

	bad, badSeen := templateServer(t)
	st := runnertest.RunPlan(t, testRegistry, fmt.Sprintf(`version: 1
groups:
  - id: crlf
    runner: sse
    sse: {url: "%s/events", subscribers: 3, headers: {X-V: '{{rand_choice "a\r\nX-Evil: 1"}}'}}
    duration: 1s
`, bad.URL), nil).Steps[0]
	if len(badSeen()) != 0 || st.ErrorKinds["template"] != 3 {
		t.Errorf("the server saw %v; error kinds %v, want 3 of kind template and nothing sent", badSeen(), st.ErrorKinds)
	}
}

// TestCountsRefused: SSE drives its own load; iterations is a plan error.
func TestCountsRefused(t *testing.T) {
	_, err := plan.ParsePlan("p.yaml", []byte(`version: 1
groups:
  - id: e
    runner: sse
    sse: {url: "http://127.0.0.1:1/{{nope}}", subscribers: 1}
    iterations: 5
`), func(string) (string, bool) { return "", false }, testRegistry)
	for _, want := range []string{"group e: iterations: runner sse drives its own load", `group e: sse.url: template: {{nope}}`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q in: %v", want, err)
		}
	}
}
