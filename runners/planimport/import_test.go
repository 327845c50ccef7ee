package planimport

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secretValues are the secrets of testdata/chrome.har: none may reach a
// plan.
var secretValues = []string{"k-7f3a9c2e11", "9f8e7d6c5b4a", "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.sig", "hunter2-long"}

func writePlan(t *testing.T, imp *Imported) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, imp); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestHARFromChrome(t *testing.T) {
	data, err := ReadInput("testdata/chrome.har", nil)
	if err != nil {
		t.Fatal(err)
	}
	imp, err := HAR("testdata/chrome.har", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Requests) != 3 || imp.Requests[1].Method != "POST" || string(imp.Requests[1].Body) != `{"name":"widget","tags":["a","b"],"n":3}` {
		t.Fatalf("%+v", imp.Requests)
	}
	pl := writePlan(t, imp)
	for _, s := range secretValues {
		if strings.Contains(pl, s) {
			t.Errorf("the plan holds the secret %q:\n%s", s, pl)
		}
	}
	for _, want := range []string{
		"api_key=${API_KEY}", "Cookie: ${COOKIE}", "Authorization: Bearer ${AUTHORIZATION}", "password=${PASSWORD}&x=1",
		"#   AUTHORIZATION  (log.entries[1].request header Authorization)", `'{{"{{"}}not-a-template}} {{"$"}}{NOT_A_VAR}'`,
	} {
		if !strings.Contains(pl, want) {
			t.Errorf("no %q in:\n%s", want, pl)
		}
	}
	for _, dropped := range []string{"Host:", "Connection:", "Content-Length:"} {
		if strings.Contains(pl, dropped) {
			t.Errorf("the plan carries %s:\n%s", dropped, pl)
		}
	}
}

// TestHARErrorsNameLineAndField: a HAR with a value of the wrong type or
// a broken JSON says where, and a control byte in a field is escaped.
func TestHARErrorsNameLineAndField(t *testing.T) {
	for data, want := range map[string]string{
		"{\"log\": {\"entries\": [\n{\"request\": {\"method\": 7}}]}}":                                                               "x.har:2: log.entries.request.method: want a string, not a JSON number",
		"{\"log\": {\"entries\": [\n\n{\"request\": }]}}":                                                                            "x.har:3: not JSON",
		`{"log": {"entries": []}}`:                                                                                                   "x.har: log.entries: no entries",
		`{"log": {"entries": [{"request": {"method": "GET", "url": "http://h/\u001b[2J"}}]}}`:                                        `x.har: log.entries[0].request.url: holds control characters`,
		`{"log": {"entries": [{"request": {"method": "GET", "url": "http://h/", "headers": [{"name": "X\u001b", "value": "v"}]}}]}}`: `log.entries[0].request.headers: "X\x1b" is not a header name`,
	} {
		imp, err := HAR("x.har", []byte(data))
		if err == nil {
			err = Write(&bytes.Buffer{}, imp)
		}
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), want) || strings.ContainsFunc(err.Error(), isControl) {
			t.Errorf("%s:\n got %v\nwant %q", data, err, want)
		}
	}
}

// TestReadInputIsBounded: a file past MaxInputBytes is refused after
// reading no more than that (a sparse file: no disk used).
func TestReadInputIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.har")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxInputBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := ReadInput(path, nil); err == nil || !strings.Contains(err.Error(), "huge.har: larger than 64 MiB") {
		t.Errorf("huge file: %v", err)
	}
}

func TestVegetaHTTPTargets(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "body.json"), []byte(`{"id": 1}`), 0o600)
	targets := filepath.Join(dir, "targets.txt")
	os.WriteFile(targets, []byte(`# a comment
GET http://127.0.0.1:8080/a
X-Account-ID: 8675309
Authorization: Bearer t0k3n-abcdef

POST http://127.0.0.1:8080/b
Content-Type: application/json
@body.json

DELETE http://user:pa55word@127.0.0.1:8080/c
`), 0o600)
	data, _ := ReadInput(targets, nil)
	imp, err := Vegeta(targets, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Requests) != 3 || string(imp.Requests[1].Body) != `{"id": 1}` || imp.Requests[2].Method != "DELETE" {
		t.Fatalf("%+v", imp.Requests)
	}
	pl := writePlan(t, imp)
	for _, want := range []string{"X-Account-ID: \"8675309\"", "Bearer ${AUTHORIZATION}", "http://user:${URL_PASSWORD}@127.0.0.1:8080/c", "(line 10 URL password)"} {
		if !strings.Contains(pl, want) {
			t.Errorf("no %q in:\n%s", want, pl)
		}
	}
	if strings.Contains(pl, "pa55word") || strings.Contains(pl, "t0k3n") {
		t.Errorf("a secret in:\n%s", pl)
	}
	_, err = Vegeta("t.txt", []byte("GET http://127.0.0.1/\nbroken header\n"))
	if err == nil || err.Error() != `t.txt:2: header: want Name: value, got "broken header"` {
		t.Errorf("bad header: %v", err)
	}
	_, err = Vegeta("t.txt", []byte("\n\nGET http://127.0.0.1/\n@missing.json\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "t.txt:4: body: ") {
		t.Errorf("missing body file: %v", err)
	}
}

func TestVegetaJSONTargets(t *testing.T) {
	data := []byte(`{"method":"POST","url":"http://127.0.0.1:8080/x","body":"eyJhIjoxfQ==","header":{"Content-Type":["application/json"],"X-Api-Key":["abcd-1234"]}}
{"method":"GET","url":"http://127.0.0.1:8080/y"}
`)
	imp, err := Vegeta("t.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Requests) != 2 || string(imp.Requests[0].Body) != `{"a":1}` {
		t.Fatalf("%+v", imp.Requests)
	}
	pl := writePlan(t, imp)
	if !strings.Contains(pl, "X-Api-Key: ${X_API_KEY}") || strings.Contains(pl, "abcd-1234") {
		t.Errorf("plan:\n%s", pl)
	}
	_, err = Vegeta("t.json", []byte("{\"method\":\"GET\",\"url\":\"http://127.0.0.1/\"}\n{\"method\":\"GET\",\"url\":5}\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "t.json:2: url: want a string") {
		t.Errorf("bad JSON target: %v", err)
	}
}

func TestSecretNames(t *testing.T) {
	for name, want := range map[string]bool{
		"Authorization": true, "X-Api-Key": true, "x_auth_token": true, "access_token": true, "Cookie": true,
		"sig": true, "apiKey": true, "PHPSESSID": true, "client_secret": true, "pwd": true,
		"keyword": false, "author": false, "design": false, "Accept": false, "page": false, "monkey": false,
	} {
		if isSecretName(name) != want {
			t.Errorf("isSecretName(%q) = %v", name, !want)
		}
	}
}
