package runners

import (
	"testing"
	"time"
)

// BenchmarkRecorderRecord is the cost of recording one named operation,
// the path every worker takes per operation (the request stream off).
func BenchmarkRecorderRecord(b *testing.B) {
	r := NewRecorder()
	due := time.Now()
	sent := due.Add(10 * time.Microsecond)
	end := sent.Add(300 * time.Microsecond)
	out := Outcome{Name: "get", Status: 200}
	b.ReportAllocs()
	for b.Loop() {
		r.Record(due, sent, end, out)
	}
}

// BenchmarkRecorderDone is the cost of recording one unnamed operation.
func BenchmarkRecorderDone(b *testing.B) {
	r := NewRecorder()
	due := time.Now()
	sent := due.Add(10 * time.Microsecond)
	end := sent.Add(300 * time.Microsecond)
	b.ReportAllocs()
	for b.Loop() {
		r.Done(due, sent, end, "")
	}
}
