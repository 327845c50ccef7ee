package tmpl

import (
	crand "crypto/rand"
	"encoding/binary"
	"math/rand/v2"
)

// State is one worker's template state: its random source, the number of
// its current request and that request's data row. It is not safe for
// concurrent use; each worker has its own.
type State struct {
	rnd     *rand.Rand
	counter *Seq   // the group's, shared by its workers
	seq     uint64 // the current request's number
	row     []string
	data    *Source
	vars    []string // captured by a flow's steps, by Scope.Vars index
	step    []string // the step's values of the group's vars, by Scope.Step index
}

// NewState returns a worker's state drawing rows from data (nil: none)
// and its requests' numbers from seq, the group's (nil: a counter of its
// own). Its random source is a PCG, fast and not cryptographic, seeded
// with 128 bits from the system's generator: two workers, or two
// processes of a sharded run, draw different UUIDs however close their
// start.
func NewState(data *Source, seq *Seq) *State {
	var seed [16]byte
	_, _ = crand.Read(seed[:]) // never fails (crypto/rand panics rather)
	hi, lo := binary.LittleEndian.Uint64(seed[:8]), binary.LittleEndian.Uint64(seed[8:])
	if seq == nil {
		seq = NewSeq()
	}
	return &State{rnd: rand.New(rand.NewPCG(hi, lo)), data: data, counter: seq}
}

// Next starts the worker's next request: {{seq}} is the group's next
// number (Seq), and a row is drawn from the data file when there is one.
// It returns false when the data's unique rows have run out (the request
// must not be sent).
func (s *State) Next() bool {
	s.seq = s.counter.Next()
	if s.data == nil {
		return true
	}
	row, ok := s.data.next(s.rnd)
	s.row = row
	return ok
}

// SetVar sets captured variable i (an index in the Scope's Vars); it
// keeps its value, through later requests, until set again.
func (s *State) SetVar(i int, v string) {
	if i >= len(s.vars) {
		s.vars = append(s.vars, make([]string, i+1-len(s.vars))...)
	}
	s.vars[i] = v
}

// SetStep gives the state the current step's values of the group's vars
// (vars:), in Scope.Step's order.
func (s *State) SetStep(values []string) { s.step = values }

// Seq is the number of the current request ({{seq}}).
func (s *State) Seq() uint64 { return s.seq }

const hexDigits = "0123456789abcdef"

// appendUUID appends a random (version 4, RFC 9562) UUID.
func (s *State) appendUUID(dst []byte) []byte {
	var b [16]byte
	hi, lo := s.rnd.Uint64(), s.rnd.Uint64()
	for i := range 8 {
		b[i], b[8+i] = byte(hi>>(56-8*i)), byte(lo>>(56-8*i))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hexDigits[c>>4], hexDigits[c&0x0f])
	}
	return dst
}
