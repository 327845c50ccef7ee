package planimport

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// curlFile names a curl command line in errors.
const curlFile = "curl"

// curlWord is one argument of the command line and its line there.
type curlWord struct {
	text string
	line int
}

// curlWords splits a command line as a POSIX shell (bash for $'…')
// would, refusing what a shell would run or expand: several commands,
// $VARS, $(…), `…`.
func curlWords(cmdline string) ([]curlWord, error) {
	if len(cmdline) > MaxInputBytes {
		return nil, &Error{File: curlFile, Msg: fmt.Sprintf("larger than %d MiB", MaxInputBytes>>20)}
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmdline), "")
	if err != nil {
		return nil, &Error{File: curlFile, Msg: "not a shell command line: " + err.Error()}
	}
	if len(f.Stmts) != 1 {
		return nil, &Error{File: curlFile, Msg: fmt.Sprintf("want one curl command, got %d commands", len(f.Stmts))}
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(f.Stmts[0].Redirs) > 0 || f.Stmts[0].Background || len(call.Assigns) > 0 {
		return nil, &Error{File: curlFile, Msg: "want a plain curl command (no pipes, redirections or assignments)"}
	}
	var words []curlWord
	for _, w := range call.Args {
		line := int(w.Pos().Line())
		if bad := expansion(w); bad != "" {
			return nil, &Error{File: curlFile, Line: line, Msg: bad + " in the command: write the value itself"}
		}
		text, err := expand.Literal(&expand.Config{}, w)
		if err != nil {
			return nil, &Error{File: curlFile, Line: line, Msg: err.Error()}
		}
		words = append(words, curlWord{text, line})
	}
	return words, nil
}

// expansion names what in w a shell would expand, "" for none.
func expansion(w *syntax.Word) string {
	found := ""
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.ParamExp:
			found = "a $VARIABLE"
		case *syntax.CmdSubst:
			found = "a command substitution"
		case *syntax.ArithmExp:
			found = "an arithmetic expansion"
		case *syntax.ProcSubst:
			found = "a process substitution"
		}
		return found == ""
	})
	return found
}

// curlNoArg are the options read without an argument that change
// nothing a plan sends.
var curlNoArg = map[string]bool{
	"-s": true, "--silent": true, "-S": true, "--show-error": true, "-L": true, "--location": true,
	"-v": true, "--verbose": true, "-i": true, "--include": true, "--http1.1": true, "--http2": true,
	"--http2-prior-knowledge": true, "-g": true, "--globoff": true, "-f": true, "--fail": true,
	"-N": true, "--no-buffer": true, "--path-as-is": true, "-#": true, "--progress-bar": true,
}

// curlIgnoredArg are the options whose argument changes nothing a plan
// sends (where curl writes, how long it waits).
var curlIgnoredArg = map[string]bool{
	"-o": true, "--output": true, "-m": true, "--max-time": true, "--connect-timeout": true,
	"--retry": true, "-w": true, "--write-out": true,
}

// curlCmd is the request a curl command line builds, as curl would.
type curlCmd struct {
	req      Request
	data     []string
	get      bool
	insecure bool
	gotMeth  bool
}

// Curl reads a curl command line, as a browser's "Copy as cURL" writes
// it: -X, -H, -d/--data/--data-raw/--data-binary/--data-ascii,
// --data-urlencode, --json, -u, -A, -e, -b, -G, -I, --compressed, -k,
// --url and the URL (bodies from @file are read, at most MaxBodyBytes).
func Curl(cmdline string) (*Imported, error) {
	words, err := curlWords(cmdline)
	if err != nil {
		return nil, err
	}
	if len(words) == 0 || words[0].text != "curl" {
		return nil, &Error{File: curlFile, Msg: "want a command line starting with curl"}
	}
	c := &curlCmd{req: Request{Where: "the command"}}
	for i := 1; i < len(words); i++ {
		if i, err = c.option(words, i); err != nil {
			return nil, err
		}
	}
	return c.finish()
}

// option reads the option (or URL) at words[i] and returns the index of
// its last word.
func (c *curlCmd) option(words []curlWord, i int) (int, error) {
	w := words[i]
	name, val, attached := splitOption(w.text)
	if !strings.HasPrefix(name, "-") || name == "-" {
		return i, c.setURL(w)
	}
	if curlNoArg[name] {
		return i, nil
	}
	if expanded, ok := shortCluster(w.text); ok {
		for _, o := range expanded {
			if err := c.flag(o, w.line); err != nil {
				return i, err
			}
		}
		return i, nil
	}
	if isFlag(name) {
		if attached {
			return i, &Error{File: curlFile, Line: w.line, Field: name, Msg: "takes no value"}
		}
		return i, c.flag(name, w.line)
	}
	if !attached {
		if i+1 >= len(words) {
			return i, &Error{File: curlFile, Line: w.line, Field: name, Msg: "needs a value"}
		}
		i++
		val = words[i].text
	}
	return i, c.withArg(name, val, w.line)
}

// splitOption splits "--name=value" and "-Xvalue"; attached says a value
// came with it.
func splitOption(s string) (name, val string, attached bool) {
	if strings.HasPrefix(s, "--") {
		if n, v, ok := strings.Cut(s, "="); ok {
			return n, v, true
		}
		return s, "", false
	}
	if len(s) > 2 && s[0] == '-' && !isFlag(s[:2]) && !curlNoArg[s[:2]] {
		return s[:2], s[2:], true
	}
	return s, "", false
}

// curlFlags are the options without an argument that change the request.
var curlFlags = map[string]bool{"-k": true, "--insecure": true, "--compressed": true, "-G": true, "--get": true, "-I": true, "--head": true}

func isFlag(name string) bool { return curlFlags[name] }

// shortCluster expands "-sSLk" into its flags when each is one.
func shortCluster(s string) ([]string, bool) {
	if len(s) < 3 || s[0] != '-' || s[1] == '-' {
		return nil, false
	}
	var out []string
	for _, c := range s[1:] {
		o := "-" + string(c)
		if !curlNoArg[o] && !isFlag(o) {
			return nil, false
		}
		out = append(out, o)
	}
	return out, true
}

func (c *curlCmd) flag(name string, line int) error {
	switch name {
	case "-k", "--insecure":
		c.insecure = true
	case "--compressed":
		if !hasHeader(c.req.Headers, "accept-encoding") {
			c.req.Headers = append(c.req.Headers, Header{"Accept-Encoding", "deflate, gzip"})
		}
	case "-G", "--get":
		c.get = true
	case "-I", "--head":
		c.req.Method, c.gotMeth = "HEAD", true
	}
	return nil
}

func (c *curlCmd) withArg(name, val string, line int) error {
	bad := func(msg string) error { return &Error{File: curlFile, Line: line, Field: name, Msg: msg} }
	switch name {
	case "-X", "--request":
		c.req.Method, c.gotMeth = val, true
	case "-H", "--header":
		k, v, ok := strings.Cut(val, ":")
		if !ok || strings.HasPrefix(val, "@") {
			return bad(fmt.Sprintf("want Name: value, got %q", clip(val)))
		}
		if v = strings.TrimSpace(v); v != "" {
			c.req.Headers = append(c.req.Headers, Header{strings.TrimSpace(k), v})
		}
	case "-d", "--data", "--data-ascii", "--data-binary", "--data-raw", "--data-urlencode", "--json":
		return c.addData(name, val, bad)
	case "-u", "--user":
		c.req.Headers = append(c.req.Headers, Header{"Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte(val))})
	case "-A", "--user-agent":
		c.req.Headers = append(c.req.Headers, Header{"User-Agent", val})
	case "-e", "--referer":
		c.req.Headers = append(c.req.Headers, Header{"Referer", val})
	case "-b", "--cookie":
		if !strings.Contains(val, "=") {
			return bad("a cookie file is not read: give the cookies as name=value")
		}
		c.req.Headers = append(c.req.Headers, Header{"Cookie", val})
	case "--url":
		return c.setURL(curlWord{val, line})
	default:
		if curlIgnoredArg[name] {
			return nil
		}
		return bad("not an option benchtui imports (supported: -X -H -d --data --data-raw --data-binary --data-urlencode --json -u -A -e -b -G -I -k --compressed --url)")
	}
	return nil
}

// addData adds a data option's body as curl would.
func (c *curlCmd) addData(name, val string, bad func(string) error) error {
	if strings.HasPrefix(val, "@") && name != "--data-raw" && name != "--data-urlencode" {
		body, err := readBodyFile("-", val[1:])
		if err != nil {
			return bad(err.Error())
		}
		val = string(body)
		if name == "-d" || name == "--data" || name == "--data-ascii" {
			val = strings.NewReplacer("\r", "", "\n", "").Replace(val)
		}
	}
	switch name {
	case "--data-urlencode":
		if k, v, ok := strings.Cut(val, "="); ok {
			val = k + "=" + url.QueryEscape(v)
		} else {
			val = url.QueryEscape(val)
		}
	case "--json":
		if !hasHeader(c.req.Headers, "content-type") {
			c.req.Headers = append(c.req.Headers, Header{"Content-Type", "application/json"}, Header{"Accept", "application/json"})
		}
	}
	c.data = append(c.data, val)
	if total := len(strings.Join(c.data, "&")); total > MaxBodyBytes {
		return bad(fmt.Sprintf("the body reaches %d bytes; at most %d", total, MaxBodyBytes))
	}
	return nil
}

func (c *curlCmd) setURL(w curlWord) error {
	if c.req.URL != "" {
		return &Error{File: curlFile, Line: w.line, Field: "url", Msg: fmt.Sprintf("a second URL %q: import one request at a time", clip(w.text))}
	}
	c.req.URL = w.text
	if !strings.Contains(w.text, "://") {
		c.req.URL = "http://" + w.text // as curl does
	}
	return nil
}

// finish is the request the options built.
func (c *curlCmd) finish() (*Imported, error) {
	if c.req.URL == "" {
		return nil, &Error{File: curlFile, Field: "url", Msg: "no URL in the command"}
	}
	if len(c.data) > 0 {
		data := strings.Join(c.data, "&")
		if c.get {
			sep := "?"
			if strings.Contains(c.req.URL, "?") {
				sep = "&"
			}
			c.req.URL += sep + data
		} else {
			c.req.Body = []byte(data)
			if !c.gotMeth {
				c.req.Method = "POST"
			}
			if !hasHeader(c.req.Headers, "content-type") {
				c.req.Headers = append(c.req.Headers, Header{"Content-Type", "application/x-www-form-urlencoded"})
			}
		}
	}
	if c.req.Method == "" {
		c.req.Method = "GET"
	}
	if field, msg := c.req.check(); field != "" {
		return nil, &Error{File: curlFile, Field: field, Msg: msg}
	}
	return &Imported{Source: "curl", File: curlFile, Requests: []Request{c.req}, Insecure: c.insecure}, nil
}
