package reqlog

import (
	"container/heap"
	"time"

	"github.com/benchtui/benchtui/runners"
)

// Records reach the writer as operations end; vegeta numbers an attack's
// results (seq) in the order they were due and `vegeta plot` wants the
// timestamps of that order to rise. The writer therefore holds each
// record until no operation due before it can still arrive, in practice:
// until it was due HoldFor ago, or HoldRecords are held, and writes each
// attack's records in due order, numbered from 0. An operation slower
// than that is written when it arrives, out of order.
const (
	HoldFor     = 5 * time.Second
	HoldRecords = 1 << 17
)

// byDue is a min-heap of records by due time.
type byDue []runners.RequestRecord

func (h byDue) Len() int           { return len(h) }
func (h byDue) Less(i, j int) bool { return h[i].Due.Before(h[j].Due) }
func (h byDue) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *byDue) Push(x any)        { *h = append(*h, x.(runners.RequestRecord)) }
func (h *byDue) Pop() any {
	old := *h
	r := old[len(old)-1]
	*h = old[:len(old)-1]
	return r
}

// attack is one attack's held records and the next number to give.
type attack struct {
	held byDue
	seq  uint64
}

// orderer holds the records of every attack until they can be written in
// due order.
type orderer struct {
	attacks map[string]*attack
	held    int
}

// add holds rec under its attack name.
func (o *orderer) add(name string, rec runners.RequestRecord) {
	if o.attacks == nil {
		o.attacks = map[string]*attack{}
	}
	a := o.attacks[name]
	if a == nil {
		a = &attack{}
		o.attacks[name] = a
	}
	heap.Push(&a.held, rec)
	o.held++
}

// release hands emit, in due order within each attack, the records due
// before cutoff, and the oldest beyond HoldRecords; a zero cutoff
// releases all.
func (o *orderer) release(cutoff time.Time, emit func(runners.RequestRecord, uint64)) {
	for _, a := range o.attacks {
		for len(a.held) > 0 && (cutoff.IsZero() || a.held[0].Due.Before(cutoff) || o.held > HoldRecords) {
			emit(heap.Pop(&a.held).(runners.RequestRecord), a.seq)
			a.seq++
			o.held--
		}
	}
}
