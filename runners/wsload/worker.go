package wsload

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/coder/websocket"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// worker holds one connection: it opens it at its first operation, and
// again at the operation after one that lost it.
type worker struct {
	r       *runner
	id      int // the worker's number: its connection's source address
	timeout time.Duration
	rec     *runners.Recorder
	st      *tmpl.State
	rnd     *rand.Rand
	conn    *websocket.Conn
	buf     []byte // a rendered message, reused
	in      []byte // a received message, reused
}

// Close closes the connection with a close handshake (status 1000), in
// the background: the runner's Finish waits for it.
func (w *worker) Close() error {
	if c := w.conn; c != nil {
		w.conn = nil
		w.r.closing.Go(func() { _ = c.Close(websocket.StatusNormalClosure, "") })
	}
	return nil
}

// Do sends one message of the mix, picked by weight, and awaits its reply.
func (w *worker) Do(ctx context.Context) runners.Outcome {
	if !w.st.Next() {
		return runners.Outcome{Exhausted: true}
	}
	m := w.r.pick(w.rnd)
	out := w.exchange(ctx, m, nil)
	out.Name = m.name
	return out
}

// exchange sends m (connecting first when the worker has no connection)
// and awaits its reply, all within the timeout; r, when not nil, gets the
// last awaited message (a flow step's captures read it). Any failure
// drops the connection.
func (w *worker) exchange(ctx context.Context, m *message, r *flow.Reply) runners.Outcome {
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	if w.conn == nil {
		if err := w.connect(ctx); err != nil {
			return runners.Outcome{Err: classify(ctx, err), Detail: detail(err)}
		}
	}
	sent := time.Now()
	w.buf = m.body.Append(w.buf[:0], w.st)
	if err := w.conn.Write(ctx, m.typ, w.buf); err != nil {
		return w.fail(ctx, err, sent)
	}
	w.rec.Count(CounterMessagesOut, 1)
	w.rec.Count(CounterBytesOut, int64(len(w.buf)))
	if err := w.await(ctx, m, r); err != nil {
		return w.fail(ctx, err, sent)
	}
	return runners.Outcome{Sent: sent}
}

// connect opens the worker's connection, its handshake timed as the
// extra timing connect.
func (w *worker) connect(ctx context.Context) error {
	start := time.Now()
	c, buf, err := w.r.d.dial(ctx, w.id, w.st, w.buf)
	w.buf = buf
	if err != nil {
		return err
	}
	w.rec.Extra(ExtraConnect, time.Since(start))
	w.rec.Count(CounterConnects, 1)
	w.conn = c
	return nil
}

// fail drops the connection after err and names the operation's error.
func (w *worker) fail(ctx context.Context, err error, sent time.Time) runners.Outcome {
	_ = w.conn.CloseNow()
	w.conn = nil
	return runners.Outcome{Err: classify(ctx, err), Detail: detail(err), Sent: sent}
}

// await reads messages until m's count of them matched m's pattern;
// every message read is counted.
func (w *worker) await(ctx context.Context, m *message, r *flow.Reply) error {
	for got := 0; got < m.count; {
		var err error
		if w.in, err = readMessage(ctx, w.conn, w.in); err != nil {
			return err
		}
		w.rec.Count(CounterMessagesIn, 1)
		w.rec.Count(CounterBytesIn, int64(len(w.in)))
		if m.match != nil && !m.match.Match(w.in) {
			continue
		}
		got++
		if r != nil && got == m.count {
			r.Body = append(r.Body[:0], w.in[:min(len(w.in), flow.MaxBodyBytes)]...)
		}
	}
	return nil
}

// newFlowWorker is a virtual user running the runner's flow on the
// worker's connection.
func newFlowWorker(w *worker) *flow.Worker {
	return w.r.flow.NewWorker(w.st, w.rec, func(ctx context.Context, i int, r *flow.Reply) runners.Outcome {
		return w.exchange(ctx, w.r.msgs[i], r)
	}, w.Close)
}
