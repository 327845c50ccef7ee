package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/theory/jsonpath"

	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/plan"
)

// client is shared by the HTTP probes. It has no overall timeout (each
// read's context carries one) and no proxy: a probe reads the URL it names.
var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}

// Request is one HTTP request of a read: a probe's GET, a verify entry's
// request. Method "" is GET.
type Request struct {
	Method, URL string
	Headers     map[string]string
	Body        string
	// Accept is the Accept header, unless Headers sets one.
	Accept string
}

// Reply is what a read got back: the status and a body of at most
// MaxBodyBytes.
type Reply struct {
	Status int
	Body   []byte
}

// Fetch sends req on the probes' client and returns its reply, whatever
// its status; a body over MaxBodyBytes is an error. ctx bounds it all.
func Fetch(ctx context.Context, req Request) (Reply, error) {
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if req.Body != "" {
		body = strings.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(ctx, method, req.URL, body)
	if err != nil {
		return Reply{}, errors.New(plan.RedactURLs(err.Error()))
	}
	if req.Accept != "" {
		hr.Header.Set("Accept", req.Accept)
	}
	for k, v := range req.Headers {
		hr.Header.Set(k, v)
	}
	resp, err := client.Do(hr)
	if err != nil {
		return Reply{}, err
	}
	defer func() {
		// Drain a little so the connection may be reused; no more.
		_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
		_ = resp.Body.Close()
	}()
	what := method + " " + plan.RedactURLs(req.URL)
	got, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes+1))
	if err != nil {
		return Reply{}, fmt.Errorf("%s: reading the reply: %w", what, err)
	}
	if len(got) > MaxBodyBytes {
		return Reply{}, fmt.Errorf("%s: reply over %d bytes: refused", what, MaxBodyBytes)
	}
	return Reply{Status: resp.StatusCode, Body: got}, nil
}

// get fetches url and returns its body, refusing one over MaxBodyBytes
// and a status other than 2xx.
func get(ctx context.Context, url string, headers map[string]string, accept string) ([]byte, error) {
	reply, err := Fetch(ctx, Request{URL: url, Headers: headers, Accept: accept})
	if err != nil {
		return nil, err
	}
	if reply.Status/100 != 2 {
		return nil, fmt.Errorf("GET %s: status %d", plan.RedactURLs(url), reply.Status)
	}
	return reply.Body, nil
}

// JSONNode is the first node path (the JSONPath text expr, for messages)
// selects in body, a JSON document: numbers as json.Number, so they stay
// as written.
func JSONNode(body []byte, path *jsonpath.Path, expr string) (any, error) {
	doc, ok := flow.DecodeJSON(body)
	if !ok {
		return nil, errors.New("the reply is not JSON")
	}
	node, ok := flow.FirstNode(doc, path)
	if !ok {
		return nil, fmt.Errorf("%s selects nothing in the reply", expr)
	}
	return node, nil
}

// NodeText is a JSON node as text: a string as it is, null as "null",
// anything else as compact JSON (a number as written, true, [1,2]).
func NodeText(node any) string {
	switch n := node.(type) {
	case string:
		return n
	case nil:
		return "null"
	}
	b, err := json.Marshal(node)
	if err != nil {
		return fmt.Sprint(node)
	}
	return string(b)
}

// jsonReader reads the number at a JSONPath of a GET reply.
type jsonReader struct {
	spec plan.ProbeHTTP
	path *jsonpath.Path
}

func newJSONReader(spec plan.ProbeHTTP) (*jsonReader, error) {
	p, err := jsonpath.Parse(spec.JSON)
	if err != nil {
		return nil, fmt.Errorf("json: %w", err)
	}
	return &jsonReader{spec: spec, path: p}, nil
}

func (r *jsonReader) Read(ctx context.Context) (float64, error) {
	body, err := get(ctx, r.spec.URL, r.spec.Headers, "application/json")
	if err != nil {
		return 0, err
	}
	node, err := JSONNode(body, r.path, r.spec.JSON)
	if err != nil {
		return 0, err
	}
	switch n := node.(type) {
	case json.Number:
		return parseNumber(n.String())
	case string:
		return parseNumber(n)
	case bool:
		if n {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("%s selects a %T, not a number", r.spec.JSON, node)
}

func (r *jsonReader) Close() error { return nil }

// acceptText asks for the Prometheus text format, which is what the
// reader parses.
const acceptText = "text/plain;version=0.0.4"

// metricReader reads one sample of a Prometheus text exposition page.
type metricReader struct{ spec plan.ProbeMetric }

func newMetricReader(spec plan.ProbeMetric) *metricReader { return &metricReader{spec: spec} }

func (r *metricReader) Read(ctx context.Context) (float64, error) {
	body, err := get(ctx, r.spec.URL, r.spec.Headers, acceptText)
	if err != nil {
		return 0, err
	}
	return findSample(strings.NewReader(string(body)), r.spec.Name, r.spec.Labels)
}

func (r *metricReader) Close() error { return nil }
