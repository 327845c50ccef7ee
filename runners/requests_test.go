package runners

import (
	"sync"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/plan"
)

// requestList keeps what a step hands the request stream.
type requestList struct {
	mu   sync.Mutex
	recs []RequestRecord
}

func (l *requestList) Request(r RequestRecord) {
	l.mu.Lock()
	l.recs = append(l.recs, r)
	l.mu.Unlock()
}

// TestStepHandsEveryOperationToTheSink: each recording path (Record,
// Done, Observe) of the step's recorders and of a load's added later
// reaches the sink, with the group, step and the load's names.
func TestStepHandsEveryOperationToTheSink(t *testing.T) {
	env := NewStepEnv(&plan.Group{ID: "g"}, plan.Load{Concurrency: 2}, 2)
	env.Index, env.Label = 1, "c=2"
	var sink requestList
	env.SetRequestSink(&sink)
	load := env.ForLoad("writers", &plan.Group{ID: "g"}, plan.Load{Concurrency: 1}, nil, 1)
	due := time.Now()
	env.Recorder(0).Record(due, due.Add(time.Millisecond), due.Add(2*time.Millisecond), Outcome{Name: "get", Status: 201})
	env.Recorder(1).Done(due, due, due.Add(time.Millisecond), "timeout")
	env.Recorder(0).Observe(time.Millisecond, time.Millisecond, "")
	load.Recorder(0).Record(due, due, due, Outcome{Name: "put"})
	load.Recorder(0).Done(due, due, due, "")
	want := []struct {
		name, err string
		status    int
	}{{"get", "", 201}, {"", "timeout", 0}, {"", "", 0}, {"writers/put", "", 0}, {"writers", "", 0}}
	if len(sink.recs) != len(want) {
		t.Fatalf("%d records, want %d: %+v", len(sink.recs), len(want), sink.recs)
	}
	for i, w := range want {
		r := sink.recs[i]
		if r.Name != w.name || r.Err != w.err || r.Status != w.status || r.Group != "g" || r.Step != "c=2" || r.Index != 1 {
			t.Errorf("record %d: %+v, want %+v", i, r, w)
		}
		if r.End.Sub(r.Due) < 0 || r.Sent.Before(r.Due) {
			t.Errorf("record %d: due %v sent %v end %v", i, r.Due, r.Sent, r.End)
		}
	}
}
