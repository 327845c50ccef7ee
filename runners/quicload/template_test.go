package quicload

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"sync"
	"testing"

	"github.com/benchtui/benchtui/runners/demo"
)

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// TestHTTP3Templates: the URL's path, a header and the body are rendered
// per request; a header that renders a CR/LF is an error of kind template
// and is never sent.
func TestHTTP3Templates(t *testing.T) {
	conf, err := demo.SelfSignedTLS()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	mux := http.NewServeMux()
	mux.HandleFunc("/items/{id}", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		for _, v := range []string{r.PathValue("id"), r.Header.Get("X-Id"), string(b)} {
			if !uuidV4.MatchString(v) {
				t.Errorf("the server saw %q, want a v4 UUID", v)
			}
			seen[v] = true
		}
	})
	srv, err := demo.ServeHTTP3(context.Background(), "127.0.0.1:0", conf, mux)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Close() }()
	distinct := func() int { // the handler's writes race the test's reads without the lock
		mu.Lock()
		defer mu.Unlock()
		return len(seen)
	}
	base := "https://" + srv.Addr().String()
	s := Spec{URL: base + "/items/{{uuid}}", Method: "POST", Body: "{{uuid}}", Headers: map[string]string{"X-Id": "{{uuid}}"}, InsecureSkipVerify: true}
	res := runOps(t, prepared(t, s), newTestRec(), 3, 20)
	if n := distinct(); res.kinds[""] != 60 || n != 180 {
		t.Errorf("outcomes %v, %d distinct UUIDs; want 60 requests with 180", res.kinds, n)
	}
	s.Headers = map[string]string{"X-Id": `{{rand_choice "a\r\nX-Evil: 1"}}`}
	res = runOps(t, prepared(t, s), newTestRec(), 1, 5)
	if n := distinct(); res.kinds["template"] != 5 || n != 180 {
		t.Errorf("outcomes %v with %d UUIDs seen: want 5 of kind template, none sent", res.kinds, n)
	}
}

// TestStreamTemplate: the stream mode's request is rendered per stream.
func TestStreamTemplate(t *testing.T) {
	srv, _ := startDemo(t)
	s := Spec{Addr: srv.Addr().String(), Request: "ECHO {{seq}}:{{uuid}}", Expect: "-4", InsecureSkipVerify: true}
	res := runOps(t, prepared(t, s), newTestRec(), 2, 10)
	if res.kinds[""] != 20 {
		t.Errorf("outcomes %v, want 20 echoes of a rendered UUID", res.kinds)
	}
}
