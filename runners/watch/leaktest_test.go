package watch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
)

// rssModel is a synthetic target's RSS at one sample a second: a base, a
// GC sawtooth (grows linearly over a cycle, then drops), AR(1) noise and a
// linear leak.
type rssModel struct {
	baseMB, leakMBPerMin float64
	sawMB, sawPeriodS    float64
	noiseMB, rho         float64
}

// randomFlat is a server with no leak and a random GC cycle: sawtooth of
// 0.5–6 MB over 1–10 s (the GC cycle of a server under load), AR(1) noise
// of 0.05–0.5 MB with ρ 0–0.9.
func randomFlat(rnd *rand.Rand) rssModel {
	return rssModel{baseMB: 40 + 80*rnd.Float64(), sawMB: 0.5 + 5.5*rnd.Float64(), sawPeriodS: 1 + 9*rnd.Float64(),
		noiseMB: 0.05 + 0.45*rnd.Float64(), rho: 0.9 * rnd.Float64()}
}

func (m rssModel) samples(rnd *rand.Rand, d time.Duration) []TimedSample {
	phase, noise := rnd.Float64()*m.sawPeriodS, 0.0
	var out []TimedSample
	for t := time.Duration(0); t <= d; t += time.Second {
		sec := t.Seconds()
		noise = m.rho*noise + math.Sqrt(1-m.rho*m.rho)*m.noiseMB*rnd.NormFloat64()
		saw := m.sawMB * math.Mod(sec+phase, m.sawPeriodS) / m.sawPeriodS
		mb := m.baseMB + saw + noise + m.leakMBPerMin*sec/60
		out = append(out, TimedSample{T: t, Sample: Sample{RSSBytes: int64(mb * bytesPerMB), FDs: 10, Threads: 4}})
	}
	return out
}

func (m rssModel) artifact(rnd *rand.Rand, d time.Duration) (*artifacts.Artifact, artifacts.TargetStats) {
	st := Analyze(m.samples(rnd, d), 0, time.Minute, 0)
	a := &artifacts.Artifact{Group: artifacts.Group{ID: "g"}, Steps: []artifacts.Step{{Label: "", Target: &st}}}
	return a, st
}

// rssVerdict compares one base run with one current run on their RSS
// slope, as `compare` does.
func rssVerdict(base, cur *artifacts.Artifact) compare.Row {
	for _, r := range compare.Compare([]*artifacts.Artifact{base}, []*artifacts.Artifact{cur}, compare.CompareOptions{}).Rows {
		if r.Metric == compare.MetricRSSSlope {
			return r
		}
	}
	return compare.Row{}
}

// TestLeakTestOnSyntheticServers: over random flat servers (GC sawtooth,
// AR(1) noise) of 10, 30, 60 and 300 s, at most 5% of flat pairs are judged
// worse and at most 5% of single flat runs rising; a leak of 60 MB/min
// introduced between two 30 s runs is judged worse, and rising, in at
// least 95% of pairs.
func TestLeakTestOnSyntheticServers(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(28, 1))
	const trials = 300
	for _, d := range []time.Duration{10 * time.Second, 30 * time.Second, time.Minute, 5 * time.Minute} {
		var worse, rising, untested int
		for range trials {
			m := randomFlat(rnd)
			base, _ := m.artifact(rnd, d)
			cur, st := m.artifact(rnd, d)
			row := rssVerdict(base, cur)
			worse += b2i(row.Verdict == compare.Worse)
			untested += b2i(row.Untested)
			rising += b2i(st.RSSRising)
		}
		t.Logf("flat %v: worse %d, untested %d, rising %d of %d", d, worse, untested, rising, trials)
		if worse > trials*5/100 || rising > trials*5/100 {
			t.Errorf("flat servers over %v: %d worse and %d rising of %d pairs, want at most 5%%", d, worse, rising, trials)
		}
	}
	var caught, rising int
	for range trials {
		m := randomFlat(rnd)
		base, _ := m.artifact(rnd, 30*time.Second)
		m.leakMBPerMin = 60
		cur, st := m.artifact(rnd, 30*time.Second)
		caught += b2i(rssVerdict(base, cur).Verdict == compare.Worse)
		rising += b2i(st.RSSRising)
	}
	t.Logf("60 MB/min over 30 s: worse %d, rising %d of %d", caught, rising, trials)
	if caught < trials*95/100 || rising < trials*95/100 {
		t.Errorf("60 MB/min leaks over 30 s: %d worse and %d rising of %d, want at least 95%%", caught, rising, trials)
	}
}

// TestTooShortSaysHowLong: a slow leak over 10 s cannot be told from a
// wide sawtooth; the row is untested and names a longer run, and a run of
// that length does decide it.
func TestTooShortSaysHowLong(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(28, 2))
	m := rssModel{baseMB: 50, sawMB: 4, sawPeriodS: 8, noiseMB: 0.2, rho: 0.5}
	base, _ := m.artifact(rnd, 10*time.Second)
	m.leakMBPerMin = 6
	cur, _ := m.artifact(rnd, 10*time.Second)
	row := rssVerdict(base, cur)
	if !row.Untested || len(row.Notes) == 0 {
		t.Fatalf("6 MB/min over 10 s beside a 4 MB sawtooth: %+v, want untested with a note", row)
	}
	var need float64
	if _, err := fmt.Sscanf(after(row.Notes[0], "about "), "%g s", &need); err != nil || need <= 10 {
		t.Fatalf("note %q names no longer run (%v)", row.Notes[0], err)
	}
	var worse int
	for range 20 {
		m.leakMBPerMin = 0
		base, _ := m.artifact(rnd, time.Duration(need)*time.Second)
		m.leakMBPerMin = 6
		cur, _ := m.artifact(rnd, time.Duration(need)*time.Second)
		worse += b2i(rssVerdict(base, cur).Verdict == compare.Worse)
	}
	if worse < 12 {
		t.Errorf("runs of the %g s the note asked for found the leak in %d of 20, want most", need, worse)
	}
}

func after(s, sep string) string {
	_, rest, _ := strings.Cut(s, sep)
	return rest
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
