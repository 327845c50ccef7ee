package grpcload

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// worker makes the calls of one goroutine.
type worker struct {
	r       *runner
	conn    *grpc.ClientConn
	own     bool // conn is the worker's own (connections: per_worker)
	timeout time.Duration
	rec     *runners.Recorder
	st      *tmpl.State
	rnd     *rand.Rand
	buf     []byte                       // rendered text, reused
	reqs    map[*call]*dynamicpb.Message // a templated call's request, reused
	reply   frame                        // the last reply
}

// Close closes the worker's own connection.
func (w *worker) Close() error {
	if w.own {
		return w.conn.Close()
	}
	return nil
}

// Do makes one call of the mix, picked by weight.
func (w *worker) Do(ctx context.Context) runners.Outcome {
	if !w.st.Next() {
		return runners.Outcome{Exhausted: true}
	}
	c := w.r.pick(w.rnd)
	out := w.send(ctx, c, false)
	out.Name = c.name
	return out
}

// send makes call c; keep keeps its (last) reply's bytes in w.reply.
func (w *worker) send(ctx context.Context, c *call, keep bool) runners.Outcome {
	cctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	cctx, w.buf = c.outgoing(cctx, w.st, w.buf)
	w.reply.keep = keep
	sent := time.Now()
	var err error
	if c.stream == nil {
		err = w.unary(cctx, c)
	} else {
		err = w.stream(cctx, c)
	}
	return runners.Outcome{Err: c.judge(classify(ctx, cctx, err), err), Detail: detail(err), Sent: sent}
}

func (w *worker) unary(ctx context.Context, c *call) error {
	b, err := w.request(c)
	if err != nil {
		return err
	}
	return w.conn.Invoke(ctx, c.method, &frame{b: b}, &w.reply)
}

// request is c's next request, encoded.
func (w *worker) request(c *call) ([]byte, error) {
	var m *dynamicpb.Message
	if c.message != nil {
		if m = w.reqs[c]; m == nil {
			if w.reqs == nil {
				w.reqs = map[*call]*dynamicpb.Message{}
			}
			m = dynamicpb.NewMessage(c.desc.Input())
			w.reqs[c] = m
		}
	}
	b, buf, err := c.request(w.buf, w.st, m)
	w.buf = buf
	return b, err
}

// stream makes a streaming call: it sends the call's requests, closes
// its side, and reads replies until the stream's end or the await count
// (which ends the call). The messages each way are counted.
func (w *worker) stream(ctx context.Context, c *call) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cs, err := w.conn.NewStream(ctx, c.stream, c.method)
	if err != nil {
		return err
	}
	sent, err := w.sendAll(cs, c)
	w.rec.Count(CounterSent, int64(sent))
	if err != nil {
		return err
	}
	got, err := w.receive(cs, c.await)
	w.rec.Count(CounterReceived, int64(got))
	return err
}

// sendAll sends c's requests on cs, closes the sending side and says how
// many it sent. A server that ended the stream meanwhile makes SendMsg
// say io.EOF: its status is then read from the replies.
func (w *worker) sendAll(cs grpc.ClientStream, c *call) (int, error) {
	sent := 0
	for ; sent < c.sends(); sent++ {
		if sent > 0 && !w.st.Next() {
			break // a unique data file ran out mid-stream: end it here
		}
		b, err := w.request(c)
		if err != nil {
			return sent, err
		}
		if err := cs.SendMsg(&frame{b: b}); err != nil {
			if errors.Is(err, io.EOF) {
				return sent, nil
			}
			return sent, err
		}
	}
	return sent, cs.CloseSend()
}

// receive reads replies until the stream ends or, when await is above 0,
// until await of them came; a stream that ends before is an error.
func (w *worker) receive(cs grpc.ClientStream, await int) (int, error) {
	limit := await
	if limit == 0 {
		limit = MaxStreamMessages
	}
	for got := 0; got < limit; got++ {
		err := cs.RecvMsg(&w.reply)
		if errors.Is(err, io.EOF) {
			if await > 0 {
				return got, errShortStream
			}
			return got, nil
		}
		if err != nil {
			return got, err
		}
	}
	return limit, nil
}

// replyJSON writes the last reply, decoded as c's output message, into r
// as JSON for the flow's captures.
func (w *worker) replyJSON(c *call, r *flow.Reply) error {
	m := dynamicpb.NewMessage(c.desc.Output())
	if err := proto.Unmarshal(w.reply.b[:w.reply.n], m); err != nil {
		return err
	}
	b, err := protojson.Marshal(m)
	if err != nil {
		return err
	}
	r.Body = append(r.Body[:0], b[:min(len(b), flow.MaxBodyBytes)]...)
	return nil
}

// newFlowWorker is a virtual user running the runner's flow.
func newFlowWorker(w *worker) *flow.Worker {
	return w.r.flow.NewWorker(w.st, w.rec, w.sendStep, w.Close)
}

// sendStep sends step i of the flow and, when its captures read the
// reply, gives them its JSON.
func (w *worker) sendStep(ctx context.Context, i int, r *flow.Reply) runners.Outcome {
	c := w.r.calls[i]
	keep := w.r.flow.Steps[i].WantsBody()
	out := w.send(ctx, c, keep)
	if out.Err == "" && keep {
		if err := w.replyJSON(c, r); err != nil {
			out.Err, out.Detail = KindOther, detail(err)
		}
	}
	return out
}

func newRand(id int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(id)+1, rand.Uint64()))
}
