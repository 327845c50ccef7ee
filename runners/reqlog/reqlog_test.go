package reqlog

import (
	"bytes"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1GiB": 1 << 30, "500MB": 5e8, "64K": 64 << 10, "4096": 4096, " 2 MiB ": 2 << 20} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1KiB", "1.5GiB", "GiB", "9999999999TiB", "1 parsec"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) took it", bad)
		}
	}
	if FormatSize(1<<30) != "1GiB" || FormatSize(4096) != "4KiB" || FormatSize(1000) != "1000B" {
		t.Error(FormatSize(1<<30), FormatSize(4096), FormatSize(1000))
	}
}

// TestOrdererWritesEachAttackInDueOrder: records arriving in end order
// come out in due order, numbered from 0 in each attack.
func TestOrdererWritesEachAttackInDueOrder(t *testing.T) {
	t0 := time.Now()
	var o orderer
	for _, d := range []int{3, 1, 2, 0, 5, 4} {
		for _, g := range []string{"a", "b"} {
			o.add(g, runners.RequestRecord{Group: g, Due: t0.Add(time.Duration(d) * time.Millisecond)})
		}
	}
	o.release(t0.Add(3*time.Millisecond), func(runners.RequestRecord, uint64) {})
	if o.held != 6 {
		t.Fatalf("held %d after releasing those due before 3 ms, want 6", o.held)
	}
	last := map[string]time.Time{}
	next := map[string]uint64{}
	o.release(time.Time{}, func(r runners.RequestRecord, seq uint64) {
		if r.Due.Before(last[r.Group]) || seq != next[r.Group]+3 {
			t.Errorf("%s: due %v after %v, seq %d", r.Group, r.Due.Sub(t0), last[r.Group].Sub(t0), seq)
		}
		last[r.Group], next[r.Group] = r.Due, next[r.Group]+1
	})
	if o.held != 0 || next["a"] != 3 || next["b"] != 3 {
		t.Errorf("held %d, released %v", o.held, next)
	}
}

// BenchmarkStreamRequest is what the stream adds to an operation when on:
// a record queued for the writer (or counted dropped when it lags).
func BenchmarkStreamRequest(b *testing.B) {
	s, err := Open(b.TempDir()+"/r.csv", DefaultMaxBytes, nil)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	rec := runners.RequestRecord{Due: now, Sent: now, End: now.Add(time.Millisecond), Name: "get", Status: 200, Group: "g", Step: "c=1"}
	b.ReportAllocs()
	for b.Loop() {
		s.Request(rec)
	}
	b.StopTimer()
	sum, err := s.Close()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(sum.Dropped)/float64(b.N), "dropped/op")
}

// BenchmarkWriteOne is the writer's cost per record (encoding and the
// buffered write): its sustained rate is 1/that.
func BenchmarkWriteOne(b *testing.B) {
	for _, ext := range []string{"csv", "json"} {
		b.Run(ext, func(b *testing.B) {
			s, err := Open(b.TempDir()+"/r."+ext, 1<<62, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			now := time.Now()
			rec := runners.RequestRecord{Due: now, Sent: now, End: now.Add(time.Millisecond), Name: "get", Status: 200, Group: "g", Step: "c=1"}
			var buf bytes.Buffer
			enc := s.encode(&buf)
			b.ReportAllocs()
			for b.Loop() {
				s.writeOne(&buf, enc, rec, 1)
			}
		})
	}
}
