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

// get fetches url and returns its body, refusing one over MaxBodyBytes.
func get(ctx context.Context, url string, headers map[string]string, accept string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() {
		// Drain a little so the connection may be reused; no more.
		_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
		_ = resp.Body.Close()
	}()
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("GET %s: status %d", plan.RedactURLs(url), resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: reading the reply: %w", plan.RedactURLs(url), err)
	}
	if len(body) > MaxBodyBytes {
		return nil, fmt.Errorf("GET %s: reply over %d bytes: refused", plan.RedactURLs(url), MaxBodyBytes)
	}
	return body, nil
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
	doc, ok := flow.DecodeJSON(body)
	if !ok {
		return 0, errors.New("the reply is not JSON")
	}
	node, ok := flow.FirstNode(doc, r.path)
	if !ok {
		return 0, fmt.Errorf("%s selects nothing in the reply", r.spec.JSON)
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
