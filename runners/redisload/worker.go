package redisload

import (
	"context"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/redis/rueidis"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// worker sends the commands of one goroutine over the runner's client
// (whose connections auto-pipeline the workers' commands).
type worker struct {
	r       *runner
	client  rueidis.Client
	timeout time.Duration
	rec     *runners.Recorder
	st      *tmpl.State
	rnd     *rand.Rand
	args    []string // the operation's rendered arguments, reused
	buf     []byte   // a rendered argument, reused
	text    []byte   // a reply's text, reused
}

// Close has nothing to release: the client is the runner's.
func (w *worker) Close() error { return nil }

// Do sends one command of the mix, picked by weight.
func (w *worker) Do(ctx context.Context) runners.Outcome {
	if !w.st.Next() {
		return runners.Outcome{Exhausted: true}
	}
	c := w.r.pick(w.rnd)
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	sent := time.Now()
	res := w.send(ctx, c)
	kind, det := w.judge(ctx, c, res, nil)
	return runners.Outcome{Err: kind, Detail: det, Sent: sent, Name: c.name}
}

// send renders c and sends it: a script by EVALSHA (EVAL on NOSCRIPT).
func (w *worker) send(ctx context.Context, c *command) rueidis.RedisResult {
	w.args, w.buf = c.render(w.args[:0], w.buf, w.st)
	if c.lua != nil {
		return c.lua.Exec(ctx, w.client, w.args[:c.nkeys], w.args[c.nkeys:])
	}
	return w.client.Do(ctx, c.build(w.client.B(), w.args))
}

// judge is the error kind of a reply (and what it said): a Redis error
// by its prefix, a failed read, or a reply outside c's expect list. It
// counts the reply under c's count names, and fills r's body with its
// text when r is not nil (a flow step's captures read it).
func (w *worker) judge(ctx context.Context, c *command, res rueidis.RedisResult, r *flow.Reply) (string, string) {
	msg, err := res.ToMessage()
	if err != nil && !rueidis.IsRedisNil(err) {
		return classify(ctx, err), detail(err)
	}
	if !c.text && r == nil {
		return "", ""
	}
	w.text = replyText(w.text[:0], msg)
	for _, name := range c.counts[string(w.text)] {
		w.rec.Count(name, 1)
	}
	if r != nil {
		r.Body = append(r.Body[:0], w.text[:min(len(w.text), flow.MaxBodyBytes)]...)
	}
	if len(c.expect) > 0 && !slices.Contains(c.expect, string(w.text)) {
		return KindUnexpected, "reply " + abbreviate(w.text)
	}
	return "", ""
}

// abbreviate is up to 80 bytes of a reply, for an error's detail.
func abbreviate(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// pipeWorker is a worker of `pipeline: N`: each operation is N commands
// of the mix, each picked by weight, sent at once (DoMulti) and each
// recorded by itself, under its name: its latency from when the batch
// was due, its service time from the batch's send.
type pipeWorker struct {
	*worker
	batch []*command
	cmds  []rueidis.Completed
}

var _ runners.Iterator = (*pipeWorker)(nil)

func newPipeWorker(w *worker, n int) *pipeWorker {
	return &pipeWorker{worker: w, batch: make([]*command, n), cmds: make([]rueidis.Completed, n)}
}

// Do sends one batch due now.
func (w *pipeWorker) Do(ctx context.Context) runners.Outcome { return w.Iterate(ctx, time.Time{}) }

// Iterate sends one batch due at due (zero: now) and records each of its
// commands.
func (w *pipeWorker) Iterate(ctx context.Context, due time.Time) runners.Outcome {
	sent := time.Now()
	if due.IsZero() {
		due = sent
	}
	for i := range w.batch {
		if !w.st.Next() {
			return runners.Outcome{Exhausted: true}
		}
		w.batch[i] = w.r.pick(w.rnd)
		w.args, w.buf = w.batch[i].render(w.args[:0], w.buf, w.st)
		w.cmds[i] = w.batch[i].build(w.client.B(), w.args)
	}
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	results := w.client.DoMulti(ctx, w.cmds...)
	end := time.Now()
	for i, res := range results {
		kind, det := w.judge(ctx, w.batch[i], res, nil)
		w.rec.Record(due, sent, end, runners.Outcome{Err: kind, Detail: det, Name: w.batch[i].name})
	}
	return runners.Outcome{Recorded: true}
}

// newFlowWorker is a virtual user running the runner's flow.
func newFlowWorker(w *worker) *flow.Worker {
	return w.r.flow.NewWorker(w.st, w.rec, w.sendStep, w.Close)
}

// sendStep sends step i of the flow, its reply's text for the captures.
func (w *worker) sendStep(ctx context.Context, i int, r *flow.Reply) runners.Outcome {
	c := w.r.cmds[i]
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	sent := time.Now()
	res := w.send(ctx, c)
	kind, det := w.judge(ctx, c, res, r)
	return runners.Outcome{Err: kind, Detail: det, Sent: sent}
}
