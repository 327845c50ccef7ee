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
	sent      time.Time   // the Benchtui-Sent header's
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
		Error: rec.Err, URL: rec.Name, sent: rec.Sent,
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

// encoder appends one result to the buffer it was made for.
type encoder func(r result) error

// newEncoder makes an encoder into buf: CSV or JSON lines.
type newEncoder func(buf *bytes.Buffer) encoder

// csvEncoder writes results as vegeta's CSV encoder does: timestamp ns,
// code, latency ns, bytes out, bytes in, error, base64 body, attack,
// seq, method, url, base64 headers.
func csvEncoder(buf *bytes.Buffer) encoder {
	w := csv.NewWriter(buf)
	var num [7][]byte
	var hdr []byte
	fields := make([]string, 12)
	return func(r result) error {
		num[0] = strconv.AppendInt(num[0][:0], r.Timestamp.UnixNano(), 10)
		num[1] = strconv.AppendUint(num[1][:0], uint64(r.Code), 10)
		num[2] = strconv.AppendInt(num[2][:0], r.Latency, 10)
		num[3] = strconv.AppendUint(num[3][:0], r.BytesOut, 10)
		num[4] = strconv.AppendUint(num[4][:0], r.BytesIn, 10)
		num[5] = strconv.AppendUint(num[5][:0], r.Seq, 10)
		hdr = appendHeaderBytes(hdr[:0], r.sent)
		num[6] = base64.StdEncoding.AppendEncode(num[6][:0], hdr)
		fields[0], fields[1], fields[2], fields[3], fields[4] = string(num[0]), string(num[1]), string(num[2]), string(num[3]), string(num[4])
		fields[5], fields[6], fields[7], fields[8] = r.Error, r.Body, r.Attack, string(num[5])
		fields[9], fields[10], fields[11] = r.Method, r.URL, string(num[6])
		if err := w.Write(fields); err != nil {
			return err
		}
		w.Flush()
		return w.Error()
	}
}

// appendHeaderBytes is the record's one header in HTTP wire form, ended
// by an empty line, as vegeta encodes a result's headers
// (http.Header.Write, then CRLF).
func appendHeaderBytes(b []byte, sent time.Time) []byte {
	b = append(b, SentHeader+": "...)
	b = sent.UTC().AppendFormat(b, time.RFC3339Nano)
	return append(b, "\r\n\r\n"...)
}

// jsonEncoder writes results as lines of vegeta's JSON results encoding.
func jsonEncoder(buf *bytes.Buffer) encoder {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return func(r result) error {
		r.Headers = http.Header{SentHeader: {r.sent.UTC().Format(time.RFC3339Nano)}}
		return enc.Encode(r) // ends the line
	}
}
