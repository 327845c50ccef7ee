package main

import (
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// bodyServer is a loopback HTTP server that keeps every request it got:
// its path and query, its headers and its body.
type bodyServer struct {
	*httptest.Server
	mu  sync.Mutex
	got []string
}

func newBodyServer(t *testing.T) *bodyServer {
	t.Helper()
	s := &bodyServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		var head strings.Builder
		r.Header.Write(&head)
		s.mu.Lock()
		s.got = append(s.got, r.URL.RequestURI()+"\n"+head.String()+"\n"+string(body))
		s.mu.Unlock()
	}))
	t.Cleanup(s.Close)
	return s
}

// requests are what the server got so far, each its target, headers and body.
func (s *bodyServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

// assertNoCanary fails the test where canary shows: in any of texts (named
// by their keys: stdout, stderr, …), in the name or content of any file
// under dirs.
func assertNoCanary(t *testing.T, canary string, texts map[string]string, dirs ...string) {
	t.Helper()
	for name, text := range texts {
		if strings.Contains(text, canary) {
			t.Errorf("%s holds the secret:\n%s", name, text)
		}
	}
	for _, dir := range dirs {
		files := 0
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if strings.Contains(d.Name(), canary) {
				t.Errorf("file name %s holds the secret", path)
			}
			if d.IsDir() {
				return nil
			}
			files++
			data, err := os.ReadFile(path)
			if err == nil && strings.Contains(string(data), canary) {
				t.Errorf("%s holds the secret", path)
			}
			return err
		})
		if err != nil || files == 0 {
			t.Errorf("reading %s: %v (%d files)", dir, err, files)
		}
	}
}

// TestVariableValueIsNeverTemplateSource: a CI value holding template
// actions ({{env "API_TOKEN"}}, {{uuid}}) reaches the server as written,
// in every request; the token it names is never sent nor written.
func TestVariableValueIsNeverTemplateSource(t *testing.T) {
	const canary = "CANARY-7f3e9a-token"
	t.Setenv("API_TOKEN", canary)
	t.Setenv("ID", "{{seq}}") // in the URL's path, which the client cuts from the URL's template
	for _, branch := range []string{`{{env "API_TOKEN"}}`, "{{uuid}}"} {
		t.Run(branch, func(t *testing.T) {
			t.Setenv("BRANCH", branch)
			srv := newBodyServer(t)
			plan := writePlanText(t, `version: 1
groups:
  - id: tmplvar
    runner: http
    http: {requests: [{method: POST, url: "`+srv.URL+`/p/${ID}?n={{seq}}", headers: {X-Branch: "${BRANCH}"}, body: "b=${BRANCH} n={{seq}}"}]}
    load: {concurrency: 1}
    iterations: 6
`)
			out := t.TempDir()
			code, stdout, stderr := runCmd(t, cmdRun, plan, "-o", out)
			if code != exitOK {
				t.Fatalf("exit %d:\n%s\n%s", code, stdout, stderr)
			}
			got := srv.requests()
			if len(got) != 6 {
				t.Fatalf("the server got %d requests, want 6:\n%s", len(got), stderr)
			}
			for i, r := range got {
				if strings.Contains(r, canary) || !strings.HasPrefix(r, "/p/%7B%7Bseq%7D%7D?n=") && !strings.HasPrefix(r, "/p/{{seq}}?n=") ||
					!strings.Contains(r, "b="+branch+" n=") || !strings.Contains(r, "X-Branch: "+branch) {
					t.Errorf("request %d: want the value as written and no token:\n%s", i, r)
				}
			}
			assertNoCanary(t, canary, map[string]string{"stdout": stdout, "stderr": stderr}, out)
		})
	}
}

// TestSecretsAreWrittenNowhere: a secret ${VAR} put in a title, a swept
// var and a one-value var (the steps' labels and vars), a request header
// and path, an action's and a setup entry's command and a probe's command
// is sent where the plan asks, and written nowhere: not on stdout or
// stderr, in the CSV, the artifact and its files (names included), the
// markdown and HTML reports, nor in the labels of /metrics.
func TestSecretsAreWrittenNowhere(t *testing.T) {
	const canary = "CANARY-4b2d-api-token"
	t.Setenv("API_TOKEN", canary)
	srv := newBodyServer(t)
	addr, err := freeLoopbackAddr("tcp")
	if err != nil {
		t.Fatal(err)
	}
	plan := writePlanText(t, `version: 1
groups:
  - id: secrets
    title: "as ${API_TOKEN}"
    runner: http
    vars: {T: ["${API_TOKEN}", "x"], AUTH: ["Bearer ${API_TOKEN}"]}
    http: {requests: [{name: call, url: "`+srv.URL+`/v/{{.T}}", headers: {Authorization: "{{.AUTH}}"}}]}
    load: {concurrency: 1}
    duration: 1s
    setup: [{exec: ["echo", "setup ${API_TOKEN}"]}]
    actions: [{at: 100ms, exec: ["echo", "action ${API_TOKEN}"]}]
    probes: [{name: echoed, interval: 100ms, command: ["sh", "-c", "echo 5 # ${API_TOKEN}"]}]
`)
	out := t.TempDir()
	done := make(chan [3]string)
	go func() {
		code, stdout, stderr := runCmd(t, cmdRun, plan, "-o", out, "--format", "csv", "--metrics-addr", addr)
		done <- [3]string{fmt.Sprint(code), stdout, stderr}
	}()
	var scraped strings.Builder
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var res [3]string
	for running := true; running; {
		select {
		case res = <-done:
			running = false
		case <-tick.C:
			if resp, err := http.Get("http://" + addr + "/metrics"); err == nil {
				io.Copy(&scraped, resp.Body)
				resp.Body.Close()
			}
		}
	}
	if res[0] != "0" || !strings.Contains(scraped.String(), `step="concurrency=1,T=[redacted]"`) {
		t.Fatalf("exit %s, want 0 and a scrape of the first step:\n%s\n%s\n%s", res[0], res[1], res[2], scraped.String())
	}
	sent := strings.Join(srv.requests(), "\n")
	if !strings.Contains(sent, "/v/"+canary+"\n") || !strings.Contains(sent, "Authorization: Bearer "+canary) {
		t.Fatalf("the token was not sent where the plan put it:\n%s", sent)
	}
	_, md, _ := runCmd(t, cmdReport, out)
	_, html, _ := runCmd(t, cmdReport, out, "--format", "html")
	assertNoCanary(t, canary, map[string]string{"stdout (CSV)": res[1], "stderr": res[2], "/metrics": scraped.String(),
		"markdown report": md, "HTML report": html}, out)
	arts := loadArtifacts(t, out)
	if st := arts["secrets"].Steps; len(st) != 2 || st[0].Vars["AUTH"] != "Bearer [redacted]" || len(st[0].Events) == 0 {
		t.Errorf("steps %+v: want two, their vars redacted and the action's events kept", st)
	}
}
