package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// seenRequest is what the recording server received.
type seenRequest struct {
	header http.Header
	body   string
}

// recordingServer answers 200 on loopback and keeps the last request of
// each "METHOD path?query".
func recordingServer(t *testing.T) (*httptest.Server, func(key string) (seenRequest, bool)) {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]seenRequest{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		mu.Lock()
		seen[r.Method+" "+r.URL.RequestURI()] = seenRequest{r.Header.Clone(), string(body)}
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return srv, func(key string) (seenRequest, bool) {
		mu.Lock()
		defer mu.Unlock()
		s, ok := seen[key]
		return s, ok
	}
}

// runWithEnv runs the binary with env added to its environment.
func runWithEnv(t *testing.T, env []string, bin string, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String()
}

// wantRequest is a request the imported plan must send as the input had
// it: headers checked by name, the body whole.
type wantRequest struct {
	key     string
	headers map[string]string
	body    string
}

// checkImport imports input with the built binary, checks the plan
// holds none of secrets, that validate refuses it without vars and takes
// it with them, and that a run of it sends each of want.
func checkImport(t *testing.T, srvSeen func(string) (seenRequest, bool), args []string, secrets, vars []string, want []wantRequest) {
	t.Helper()
	bin := benchtuiBinary(t)
	planPath := filepath.Join(t.TempDir(), "imported.yaml")
	if code, out := runBinary(t, bin, append(append([]string{"import"}, args...), "-o", planPath)...); code != exitOK {
		t.Fatalf("import: exit %d\n%s", code, out)
	}
	text, _ := os.ReadFile(planPath)
	for _, s := range secrets {
		if bytes.Contains(text, []byte(s)) {
			t.Fatalf("the plan holds the secret %q:\n%s", s, text)
		}
	}
	if len(vars) > 0 {
		name, _, _ := strings.Cut(vars[0], "=")
		if code, out := runWithEnv(t, nil, bin, "validate", planPath); code != exitUsage || !strings.Contains(out, name+" is not set") {
			t.Errorf("validate without %s: exit %d\n%s", name, code, out)
		}
	}
	if code, out := runWithEnv(t, vars, bin, "validate", planPath); code != exitOK {
		t.Fatalf("validate: exit %d\n%s\nplan:\n%s", code, out, text)
	}
	if code, out := runWithEnv(t, vars, bin, "run", planPath, "-o", t.TempDir(), "--duration", "300ms"); code != exitOK {
		t.Fatalf("run: exit %d\n%s\nplan:\n%s", code, out, text)
	}
	for _, w := range want {
		got, ok := srvSeen(w.key)
		if !ok {
			t.Errorf("the server never received %s (plan:\n%s)", w.key, text)
			continue
		}
		if got.body != w.body {
			t.Errorf("%s: body %q, want %q", w.key, got.body, w.body)
		}
		for k, v := range w.headers {
			if g := got.header.Get(k); g != v {
				t.Errorf("%s: header %s %q, want %q", w.key, k, g, v)
			}
		}
	}
}

// TestImportHARRunsAsRecorded: the Chrome HAR of runners/planimport's
// testdata, pointed at a loopback server, imports into a plan that
// validate takes (its secrets set) and whose run sends each request as
// the browser did.
func TestImportHARRunsAsRecorded(t *testing.T) {
	t.Parallel()
	srv, seen := recordingServer(t)
	har, err := os.ReadFile("../../runners/planimport/testdata/chrome.har")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "session.har")
	os.WriteFile(path, bytes.ReplaceAll(har, []byte("http://127.0.0.1:8080"), []byte(srv.URL)), 0o600)
	checkImport(t, seen, []string{"har", path},
		[]string{"k-7f3a9c2e11", "9f8e7d6c5b4a", "eyJhbGciOiJIUzI1NiJ9", "hunter2-long"},
		[]string{"API_KEY=k-7f3a9c2e11", "COOKIE=sid=9f8e7d6c5b4a; theme=dark", "AUTHORIZATION=eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.sig", "PASSWORD=hunter2-long"},
		[]wantRequest{
			{"GET /api/items?page=2&api_key=k-7f3a9c2e11", map[string]string{"Cookie": "sid=9f8e7d6c5b4a; theme=dark", "Accept": "application/json"}, ""},
			{"POST /api/items", map[string]string{"Authorization": "Bearer eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.sig", "Content-Type": "application/json",
				"X-Trace": "{{not-a-template}} ${NOT_A_VAR}"}, `{"name":"widget","tags":["a","b"],"n":3}`},
			{"POST /login", map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": srv.URL}, "user=ada&password=hunter2-long&x=1"},
		})
}

// TestImportCurlRunsAsCopied: a "Copy as cURL" command line with bash's
// $'…' quoting, escaped quotes and -u.
func TestImportCurlRunsAsCopied(t *testing.T) {
	t.Parallel()
	srv, seen := recordingServer(t)
	cmdline := `curl '` + srv.URL + `/api/items?q=a%20b' \
  -H 'Accept: application/json' \
  -H $'X-Quote: it\'s "quoted" {{x}}' \
  -H 'Content-Type: application/json' \
  -u 'ada:s3cret pass' \
  --data-raw $'{"name":"a\\nb"}' \
  --compressed`
	checkImport(t, seen, []string{"curl", cmdline}, []string{"s3cret"},
		[]string{"AUTHORIZATION=YWRhOnMzY3JldCBwYXNz"},
		[]wantRequest{{"POST /api/items?q=a%20b", map[string]string{
			"Authorization": "Basic YWRhOnMzY3JldCBwYXNz", "X-Quote": `it's "quoted" {{x}}`, "Content-Type": "application/json",
		}, "{\"name\":\"a\\nb\"}"}})
}

// TestImportVegetaTargetsRunAsListed: vegeta's http targets (with a
// @body file) and its JSON targets.
func TestImportVegetaTargetsRunAsListed(t *testing.T) {
	t.Parallel()
	srv, seen := recordingServer(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "body.json"), []byte(`{"id": 1}`), 0o600)
	targets := filepath.Join(dir, "targets.txt")
	os.WriteFile(targets, []byte("GET "+srv.URL+"/a?token=tok-123456\nX-Account: 42\n\nPOST "+srv.URL+"/b\nContent-Type: application/json\n@body.json\n"), 0o600)
	checkImport(t, seen, []string{"vegeta", targets}, []string{"tok-123456"}, []string{"TOKEN=tok-123456"},
		[]wantRequest{
			{"GET /a?token=tok-123456", map[string]string{"X-Account": "42"}, ""},
			{"POST /b", map[string]string{"Content-Type": "application/json"}, `{"id": 1}`},
		})
	jsonTargets := filepath.Join(dir, "targets.json")
	os.WriteFile(jsonTargets, []byte(`{"method":"PUT","url":"`+srv.URL+`/c","body":"eyJhIjoxfQ==","header":{"X-Api-Key":["abcd-1234"]}}`+"\n"), 0o600)
	checkImport(t, seen, []string{"vegeta", jsonTargets}, []string{"abcd-1234"}, []string{"X_API_KEY=abcd-1234"},
		[]wantRequest{{"PUT /c", map[string]string{"X-Api-Key": "abcd-1234"}, `{"a":1}`}})
}

// TestImportErrorsAreEscapedAndNamed: a bad input's error names the file,
// line and field on stderr, with no control byte, and exits 2.
func TestImportErrorsAreEscapedAndNamed(t *testing.T) {
	t.Parallel()
	bin := benchtuiBinary(t)
	targets := filepath.Join(t.TempDir(), "t.txt")
	os.WriteFile(targets, []byte("GET http://127.0.0.1/\n\x1b]0;pwned\x07: v\n"), 0o600)
	code, out := runBinary(t, bin, "import", "vegeta", targets)
	if code != exitUsage || !strings.Contains(out, `t.txt:2: header: "\x1b]0;pwned\a" is not a header name`) || strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("exit %d: %q", code, out)
	}
	code, out = runBinary(t, bin, "import", "soap", "x")
	if code != exitUsage || !strings.Contains(out, `unknown input "soap"`) {
		t.Errorf("exit %d: %q", code, out)
	}
}
