package reqlog

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/benchtui/benchtui/runners"
)

// SentHeader is the header of a record that says when the operation went
// out (RFC 3339, nanoseconds); the record's timestamp is when it was due.
const SentHeader = "Benchtui-Sent"

// result is one record in vegeta's lib.Result layout (its JSON field
// order and names).
type result struct {
	Attack    string      `json:"attack"`
	Seq       uint64      `json:"seq"`
	Code      uint16      `json:"code"`
	Timestamp time.Time   `json:"timestamp"`
	Latency   int64       `json:"latency"`
	BytesOut  uint64      `json:"bytes_out"`
	BytesIn   uint64      `json:"bytes_in"`
	Error     string      `json:"error"`
	Body      string      `json:"body"`
	Method    string      `json:"method"`
	URL       string      `json:"url"`
	Headers   http.Header `json:"headers"`
}

// toResult is rec as vegeta's result number seq: the timestamp is when
// it was due and the latency from then (as the artifact's), the attack is
// GROUP/STEP, the URL the operation's name, and the code its status, 200
// for a success without one (a non-HTTP kind's: vegeta counts 2xx as
// success) and 0 for an error without one.
func toResult(rec runners.RequestRecord, seq uint64) result {
	code := rec.Status
	if code == 0 && rec.Err == "" {
		code = http.StatusOK
	}
	return result{
		Attack: attackName(rec), Seq: seq, Code: uint16(min(max(code, 0), 65535)),
		Timestamp: rec.Due, Latency: rec.End.Sub(rec.Due).Nanoseconds(),
		Error: rec.Err, URL: rec.Name,
		Headers: http.Header{SentHeader: {rec.Sent.UTC().Format(time.RFC3339Nano)}},
	}
}

// attackName is GROUP/STEP: the step's label, else its 1-based number.
func attackName(rec runners.RequestRecord) string {
	step := rec.Step
	if step == "" {
		step = "step " + strconv.Itoa(rec.Index+1)
	}
	return rec.Group + "/" + step
}

// encoder appends one result to buf in a file's encoding.
type encoder func(buf *bytes.Buffer, r result) error

// encodeCSV writes r as vegeta's CSV encoder does: timestamp ns, code,
// latency ns, bytes out, bytes in, error, base64 body, attack, seq,
// method, url, base64 headers.
func encodeCSV(buf *bytes.Buffer, r result) error {
	w := csv.NewWriter(buf)
	err := w.Write([]string{
		strconv.FormatInt(r.Timestamp.UnixNano(), 10),
		strconv.FormatUint(uint64(r.Code), 10),
		strconv.FormatInt(r.Latency, 10),
		strconv.FormatUint(r.BytesOut, 10),
		strconv.FormatUint(r.BytesIn, 10),
		r.Error,
		r.Body,
		r.Attack,
		strconv.FormatUint(r.Seq, 10),
		r.Method,
		r.URL,
		base64.StdEncoding.EncodeToString(headerBytes(r.Headers)),
	})
	w.Flush()
	if err != nil {
		return err
	}
	return w.Error()
}

// headerBytes is h in HTTP wire form, ended by an empty line, as vegeta
// encodes a result's headers.
func headerBytes(h http.Header) []byte {
	var b bytes.Buffer
	_ = h.Write(&b)
	return append(b.Bytes(), '\r', '\n')
}

// encodeJSON writes r as one line of vegeta's JSON results encoding.
func encodeJSON(buf *bytes.Buffer, r result) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return enc.Encode(r) // ends the line
}
