package planimport

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// harFile is the part of a HAR 1.2 file (a browser's network log) that
// makes requests.
type harFile struct {
	Log struct {
		Entries []struct {
			Request struct {
				Method  string `json:"method"`
				URL     string `json:"url"`
				Headers []struct {
					Name  string `json:"name"`
					Value string `json:"value"`
				} `json:"headers"`
				PostData *struct {
					MimeType string `json:"mimeType"`
					Text     string `json:"text"`
				} `json:"postData"`
			} `json:"request"`
		} `json:"entries"`
	} `json:"log"`
}

// HAR reads the requests of a HAR file's entries (log.entries[].request),
// named name in errors.
func HAR(name string, data []byte) (*Imported, error) {
	var f harFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, jsonError(name, data, err)
	}
	if len(f.Log.Entries) > MaxRequests {
		return nil, &Error{File: name, Field: "log.entries", Msg: fmt.Sprintf("%d entries; at most %d are imported", len(f.Log.Entries), MaxRequests)}
	}
	imp := &Imported{Source: "har " + name, File: name}
	for i, e := range f.Log.Entries {
		q := e.Request
		r := Request{Method: q.Method, URL: q.URL, Where: fmt.Sprintf("log.entries[%d].request", i)}
		for _, h := range q.Headers {
			r.Headers = append(r.Headers, Header{Name: h.Name, Value: h.Value})
		}
		if q.PostData != nil && q.PostData.Text != "" {
			r.Body = []byte(q.PostData.Text)
			if q.PostData.MimeType != "" && !hasHeader(r.Headers, "content-type") {
				r.Headers = append(r.Headers, Header{Name: "Content-Type", Value: q.PostData.MimeType})
			}
		}
		imp.Requests = append(imp.Requests, r)
	}
	if len(imp.Requests) == 0 {
		return nil, &Error{File: name, Field: "log.entries", Msg: "no entries: not a HAR file with requests"}
	}
	return imp, nil
}

func hasHeader(hs []Header, name string) bool {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return true
		}
	}
	return false
}

// jsonError is a JSON decoding error as an Error naming the line and,
// for a value of the wrong type, the field.
func jsonError(name string, data []byte, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return &Error{File: name, Line: lineAt(data, syntax.Offset), Msg: "not JSON: " + syntax.Error()}
	case errors.As(err, &typ):
		return &Error{File: name, Line: lineAt(data, typ.Offset), Field: typ.Field,
			Msg: fmt.Sprintf("want a %s, not a JSON %s", typ.Type, typ.Value)}
	}
	return &Error{File: name, Msg: err.Error()}
}
