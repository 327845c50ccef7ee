package demo

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

const maxSSERate = 10000

// SSEHandler returns the demo Server-Sent Events handler, meant for
// /events. Each event has an increasing id and JSON data with the same id
// and ts, the send time in unix milliseconds (with microsecond fraction):
//
//	id: 7
//	data: {"id":7,"ts":1764513600123.456}
//
// Query parameters: rate, events per second (default defaultRate, else 10;
// at most 10000); limit, close the stream after that many events (a
// reconnect storm without killing the server). A Last-Event-ID header
// continues the numbering after it.
func SSEHandler(defaultRate float64) http.Handler { return sseHandler(defaultRate, nil, nil, nil) }

// sseCounts are the server's own count of its streams, for /metrics: the
// ground truth a client's count of events is checked against.
type sseCounts struct {
	open atomic.Int64 // streams open now (status 200 sent, not yet ended)
	sent atomic.Int64 // events written and flushed, of every stream
}

// sseHandler is SSEHandler whose streams also end, each with a proper end
// of response, when done is closed (the server is shutting down), and
// which the faults leak, fd-leak, stream-cap and unclean-close break (f
// may be nil).
func sseHandler(defaultRate float64, done <-chan struct{}, f *Faults, counts *sseCounts) http.Handler {
	if counts == nil {
		counts = &sseCounts{}
	}
	if defaultRate <= 0 {
		defaultRate = 10
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rate := queryFloat(r, "rate", defaultRate)
		if rate <= 0 || rate > maxSSERate {
			http.Error(w, "rate must be in (0, 10000]", http.StatusBadRequest)
			return
		}
		limit := int64(queryFloat(r, "limit", 0))
		next := int64(1)
		if last, err := strconv.ParseInt(r.Header.Get("Last-Event-ID"), 10, 64); err == nil {
			next = last + 1
		}
		if !f.openStream() {
			http.Error(w, "demo fault: stream-cap", http.StatusServiceUnavailable)
			return
		}
		defer f.closeStream()
		f.leakFile()
		serveSSE(w, r, sseStream{every: time.Duration(float64(time.Second) / rate), next: next, limit: limit, done: done, f: f, counts: counts})
	})
}

func queryFloat(r *http.Request, key string, def float64) float64 {
	v := r.URL.Query().Get(key)
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return -1
	}
	return f
}

// sseStream is one stream's pacing, numbering and end.
type sseStream struct {
	every       time.Duration
	next, limit int64
	done        <-chan struct{} // closed: end the stream (cleanly unless f's unclean-close)
	f           *Faults
	counts      *sseCounts
}

func serveSSE(w http.ResponseWriter, r *http.Request, s sseStream) {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream outlives any server write timeout
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if rc.Flush() != nil {
		return
	}
	s.counts.open.Add(1)
	defer s.counts.open.Add(-1)
	tick := time.NewTicker(s.every)
	defer tick.Stop()
	buf := make([]byte, 0, 96)
	for sent := int64(0); s.limit <= 0 || sent < s.limit; sent++ {
		select {
		case <-r.Context().Done():
			return
		case <-s.done:
			if s.f != nil && s.f.UncleanClose {
				panic(http.ErrAbortHandler) // the connection is cut mid-response
			}
			return // a graceful end: the response finishes
		case <-tick.C:
			// ts is when the event is written, not when the tick fired.
			buf = appendSSEEvent(buf[:0], s.next, time.Now())
		}
		if _, err := w.Write(buf); err != nil || rc.Flush() != nil {
			return
		}
		s.counts.sent.Add(1)
		s.f.leak()
		s.next++
	}
}

func appendSSEEvent(b []byte, id int64, now time.Time) []byte {
	b = append(b, "id: "...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, "\ndata: "...)
	b = appendFeedMessage(b, id, now)
	return append(b, "\n\n"...)
}

// appendFeedMessage appends {"id":id,"ts":MS}, MS now in unix
// milliseconds (with microsecond fraction): an event's data, a /ws/feed
// message.
func appendFeedMessage(b []byte, id int64, now time.Time) []byte {
	ms := float64(now.UnixMicro()) / 1000
	b = append(b, "{\"id\":"...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, ",\"ts\":"...)
	b = strconv.AppendFloat(b, ms, 'f', 3, 64)
	return append(b, '}')
}
