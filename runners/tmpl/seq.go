package tmpl

import "sync/atomic"

// Seq numbers a group's operations for {{seq}} (and the postgres
// runner's $seq): from 1, shared by every worker of the group (of its
// load, with loads:) and kept across its steps, so that no two operations
// of the run share a number. The shards of a distributed run stripe it
// (Stripe): shard i of n numbers i+1, i+1+n, i+1+2n, … It is safe for
// concurrent use.
type Seq struct {
	n             atomic.Uint64
	first, stride uint64
}

// NewSeq returns a counter whose first number is 1.
func NewSeq() *Seq { return &Seq{stride: 1} }

// Stripe makes s number as shard index of count does; count 0 (a run on
// one machine) leaves it counting 1, 2, 3, … It is called before the
// workers that draw from s start.
func (s *Seq) Stripe(index, count int) {
	if count > 0 {
		s.first, s.stride = uint64(index), uint64(count)
	}
}

// Next is the next operation's number.
func (s *Seq) Next() uint64 { return s.first + (s.n.Add(1)-1)*s.stride + 1 }
