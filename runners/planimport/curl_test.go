package planimport

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func curlOne(t *testing.T, cmdline string) Request {
	t.Helper()
	imp, err := Curl(cmdline)
	if err != nil {
		t.Fatalf("%s: %v", cmdline, err)
	}
	return imp.Requests[0]
}

func headerOf(r Request, name string) string {
	var vals []string
	for _, h := range r.Headers {
		if strings.EqualFold(h.Name, name) {
			vals = append(vals, h.Value)
		}
	}
	return strings.Join(vals, "|")
}

// TestCurlQuoting: Chrome's "Copy as cURL" (bash), with $'…' quoting,
// escaped quotes, line continuations and options in each spelling.
func TestCurlQuoting(t *testing.T) {
	chrome := `curl 'http://127.0.0.1:8080/api/items' \
  -H 'Accept: application/json' \
  -H $'X-Quote: it\'s "quoted"' \
  -H 'Content-Type: application/json' \
  --data-raw $'{"name":"a\\nb","emoji":"\u00e9"}' \
  --compressed`
	r := curlOne(t, chrome)
	if r.Method != "POST" || r.URL != "http://127.0.0.1:8080/api/items" {
		t.Errorf("method %q url %q", r.Method, r.URL)
	}
	if got := headerOf(r, "X-Quote"); got != `it's "quoted"` {
		t.Errorf("X-Quote %q", got)
	}
	if got := string(r.Body); got != `{"name":"a\nb","emoji":"é"}` {
		t.Errorf("body %q", got)
	}
	if headerOf(r, "Accept-Encoding") == "" || headerOf(r, "Content-Type") != "application/json" {
		t.Errorf("headers %v", r.Headers)
	}

	r = curlOne(t, `curl -XPUT "http://127.0.0.1:1/a b?x=\"1\"" -d a=1 -d 'b=2 3' -u 'ada:pa ss' -sSLk -A ua/1 -b 'k=v'`)
	if r.Method != "PUT" || string(r.Body) != "a=1&b=2 3" || headerOf(r, "Content-Type") != "application/x-www-form-urlencoded" {
		t.Errorf("%+v", r)
	}
	if got := headerOf(r, "Authorization"); got != "Basic "+base64.StdEncoding.EncodeToString([]byte("ada:pa ss")) {
		t.Errorf("Authorization %q", got)
	}
	if headerOf(r, "User-Agent") != "ua/1" || headerOf(r, "Cookie") != "k=v" || r.URL != `http://127.0.0.1:1/a b?x="1"` {
		t.Errorf("%+v", r)
	}
	imp, _ := Curl(`curl -k 127.0.0.1:8080/x -G --data-urlencode 'q=a b&c'`)
	if r := imp.Requests[0]; !imp.Insecure || r.Method != "GET" || r.URL != "http://127.0.0.1:8080/x?q=a+b%26c" || r.Body != nil {
		t.Errorf("-G: %+v insecure %v", r, imp.Insecure)
	}
	dir := t.TempDir()
	body := filepath.Join(dir, "body.json")
	os.WriteFile(body, []byte("{\"a\":\n1}"), 0o600)
	r = curlOne(t, `curl --url http://127.0.0.1:1/ --data-binary @`+body+` --json '{}' -X PATCH`)
	if r.Method != "PATCH" || string(r.Body) != "{\"a\":\n1}&{}" || headerOf(r, "Content-Type") != "application/json" {
		t.Errorf("%+v", r)
	}
}

// TestCurlErrorsNameTheLineAndOption: what a shell would expand, an
// option benchtui does not import and control bytes are refused, the
// message naming the line and the option, its control bytes escaped.
func TestCurlErrorsNameTheLineAndOption(t *testing.T) {
	for cmdline, want := range map[string]string{
		"curl http://127.0.0.1/ \\\n  -F a=1":          "curl:2: -F: not an option",
		"curl http://127.0.0.1/ -H \"X: $HOME\"":       "a $VARIABLE in the command",
		"curl http://127.0.0.1/ -d \"$(cat /etc/pw)\"": "command substitution",
		"curl http://127.0.0.1/; rm -rf /":             "want one curl command",
		"curl http://127.0.0.1/ > out":                 "no pipes, redirections",
		"wget http://127.0.0.1/":                       "starting with curl",
		"curl -H":                                      "-H: needs a value",
		"curl http://127.0.0.1/ -H $'X: a\\x1b[2Jb'":   `control characters`,
		"curl $'http://127.0.0.1/\\x1b]0;pwned\\a'":    `url: holds control characters`,
		"curl ftp://127.0.0.1/":                        "not an http:// or https:// URL",
		"curl http://127.0.0.1/ http://127.0.0.2/":     "a second URL",
		"curl 'unterminated":                           "not a shell command line",
		"curl http://127.0.0.1/ -X 'GET /x HTTP/1.1'":  "method: ",
		"curl http://127.0.0.1/ -d @/no/such/file":     "-d: ",
	} {
		_, err := Curl(cmdline)
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", cmdline, err, want)
			continue
		}
		if strings.ContainsFunc(err.Error(), isControl) {
			t.Errorf("%q: the error holds control bytes: %q", cmdline, err.Error())
		}
	}
}
