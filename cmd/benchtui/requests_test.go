package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/reqlog"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// requestsPlan is one closed-loop http group against url for 1 s.
func requestsPlan(t *testing.T, url string) string {
	return writePlanText(t, `version: 1
groups:
  - id: stream
    runner: http
    http: {requests: [{name: get, url: "`+url+`/r"}]}
    load: {concurrency: 4}
    duration: 1s
`)
}

// decodeResults reads a request file with vegeta's own decoder for its
// extension.
func decodeResults(t *testing.T, path string) []vegeta.Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := vegeta.NewCSVDecoder(f)
	if strings.HasSuffix(path, ".json") {
		dec = vegeta.NewJSONDecoder(f)
	}
	var out []vegeta.Result
	for len(out) < 1e7 {
		var r vegeta.Result
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("vegeta cannot decode record %d of %s: %v", len(out)+1, path, err)
		}
		out = append(out, r)
	}
	t.Fatal("too many records")
	return nil
}

// TestRunRequestsVegetaReadsThem runs the built binary with --requests
// in each format against a counting server; vegeta's decoder reads as
// many records as the server served and the artifact counts, their median
// latency is the artifact's p50, and `vegeta report` counts them too.
func TestRunRequestsVegetaReadsThem(t *testing.T) {
	t.Parallel()
	bin := benchtuiBinary(t)
	vegetaBin := buildVegeta(t)
	for _, ext := range []string{".csv", ".json"} {
		t.Run(ext, func(t *testing.T) {
			srv, served := runnertest.CountingServer(t, time.Millisecond)
			out, file := t.TempDir(), filepath.Join(t.TempDir(), "requests"+ext)
			code, text := runBinary(t, bin, "run", requestsPlan(t, srv.URL), "-o", out, "--requests", file)
			if code != exitOK {
				t.Fatalf("exit %d\n%s", code, text)
			}
			step := loadArtifacts(t, out)["stream"].Steps[0]
			results := decodeResults(t, file)
			if n := int64(len(results)); n != served.Load() || n != step.Requests || n == 0 {
				t.Fatalf("%d records, the server served %d, the artifact counts %d", n, served.Load(), step.Requests)
			}
			checkResults(t, results, step)
			if vegetaBin != "" {
				checkVegetaReport(t, vegetaBin, file, len(results))
			}
		})
	}
}

// checkResults checks the records' fields and that their median latency
// is the artifact's p50, within the histogram's precision (3 digits) and
// its 1 µs unit.
func checkResults(t *testing.T, results []vegeta.Result, step artifacts.Step) {
	t.Helper()
	lat := make([]float64, len(results))
	for i, r := range results {
		if r.Code != 200 || r.Error != "" || r.Attack != "stream/concurrency=4" || r.URL != "get" || r.Seq != uint64(i) {
			t.Fatalf("record %d: %+v", i, r)
		}
		sent, err := time.Parse(time.RFC3339Nano, r.Headers.Get(reqlog.SentHeader))
		if err != nil || sent.Before(r.Timestamp) || sent.After(r.End()) {
			t.Fatalf("record %d: sent %q (%v) not between due %v and end %v", i, r.Headers.Get(reqlog.SentHeader), err, r.Timestamp, r.End())
		}
		lat[i] = float64(r.Latency.Microseconds()) / 1e3
	}
	slices.Sort(lat)
	p50 := lat[(len(lat)-1)/2]
	if tol := 0.002*p50 + 0.002; p50 < step.LatencyMS.P50-tol || p50 > step.LatencyMS.P50+tol {
		t.Errorf("records' median latency %.4f ms, the artifact's p50 %.4f ms (tolerance %.4f)", p50, step.LatencyMS.P50, tol)
	}
	t.Logf("%d records, median %.4f ms, artifact p50 %.4f ms", len(lat), p50, step.LatencyMS.P50)
}

// vegetaModule is the vegeta the test imports (go.mod's).
const vegetaModule = "github.com/tsenart/vegeta/v12@v12.13.0"

// buildVegeta builds the vegeta command of vegetaModule in a module of
// its own (the repository's go.mod is left as it is), "" with a log line
// when it cannot be built here (offline, with no module cache).
func buildVegeta(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "vegeta")
	path, version, _ := strings.Cut(vegetaModule, "@")
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module vegetabuild\n\nrequire "+path+" "+version+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The repository's sums: without them go asks the checksum database,
	// which can take minutes where it is not reachable.
	if sums, err := os.ReadFile("../../go.sum"); err == nil {
		os.WriteFile(filepath.Join(dir, "go.sum"), sums, 0o644)
	}
	cmd := exec.Command("go", "build", "-mod=mod", "-o", bin, path)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Logf("vegeta does not build here, its report is not checked: %v\n%s", err, out)
		return ""
	}
	return bin
}

// checkVegetaReport runs `vegeta report` on file and checks its request
// count.
func checkVegetaReport(t *testing.T, vegetaBin, file string, want int) {
	t.Helper()
	out, err := exec.Command(vegetaBin, "report", file).CombinedOutput()
	if err != nil {
		t.Fatalf("vegeta report: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`Requests\s+\[total, rate, throughput\]\s+(\d+),`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no request count in vegeta report:\n%s", out)
	}
	if n, _ := strconv.Atoi(string(m[1])); n != want {
		t.Errorf("vegeta report counts %d requests, the file has %d:\n%s", n, want, out)
	}
	if !strings.Contains(string(out), "Success       [ratio]                           100.00%") {
		t.Errorf("vegeta report does not see every request succeed:\n%s", out)
	}
	t.Logf("vegeta report:\n%s", out)
	plot, err := exec.Command(vegetaBin, "plot", file).CombinedOutput()
	if err != nil || !strings.Contains(string(plot), "<html") {
		t.Errorf("vegeta plot: %v, %d bytes: %.300s", err, len(plot), plot)
	}
}

// TestRunRequestsCapDropsAndCounts: a request file capped at 4 KiB holds
// no more, the records beyond it are counted dropped (on stderr and in the
// artifact's notes), written and dropped add up to what the server served,
// and the run is not held up by the full file: its throughput is at least
// 0.3 of the same run's without a file (a load that waited for the writer
// would be far below; the stream's cost on the hot path is the recorder
// benchmarks', not this test's: beside a busy suite two runs a second
// apart differed by 0.66, and once by 0.09, so a ratio below 0.3 is
// judged again on a second capped run). Not parallel.
func TestRunRequestsCapDropsAndCounts(t *testing.T) {
	bin := benchtuiBinary(t)
	srv, served := runnertest.CountingServer(t, time.Millisecond)
	plainSrv, _ := runnertest.CountingServer(t, time.Millisecond)
	// The run without a file goes at the same time, against a server of
	// its own: one after the other in a busy suite, the second run met
	// another machine (ratios of 0.09 to 0.26 where quiet gives 0.97).
	plainPlan, plainOut := requestsPlan(t, plainSrv.URL), t.TempDir()
	var plainCode int
	var plainText string
	var wg sync.WaitGroup
	wg.Go(func() { plainCode, plainText = runBinary(t, bin, "run", plainPlan, "-o", plainOut) })
	out, file := t.TempDir(), filepath.Join(t.TempDir(), "requests.csv")
	code, text := runBinary(t, bin, "run", requestsPlan(t, srv.URL), "-o", out, "--requests", file, "--requests-max", "4KiB")
	wg.Wait()
	if plainCode != exitOK {
		t.Fatalf("without a file: exit %d\n%s", plainCode, plainText)
	}
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, text)
	}
	plain := loadArtifacts(t, plainOut)["stream"].Steps[0]
	a := loadArtifacts(t, out)["stream"]
	capped := a.Steps[0]
	if fi, err := os.Stat(file); err != nil || fi.Size() > 4096 || fi.Size() < 3000 {
		t.Fatalf("request file: %v, %v bytes (cap 4096)", err, fi.Size())
	}
	m := regexp.MustCompile(`requests: (\d+) records written to requests.csv, (\d+) dropped \(the file reached its cap of 4KiB`).FindStringSubmatch(text)
	if m == nil || !strings.Contains(text, "reached its cap of 4KiB: further records are dropped") {
		t.Fatalf("no cap and count on stderr:\n%s", text)
	}
	written, _ := strconv.ParseInt(m[1], 10, 64)
	dropped, _ := strconv.ParseInt(m[2], 10, 64)
	if n := int64(len(decodeResults(t, file))); n != written || written+dropped != served.Load() {
		t.Errorf("%d records in the file, %d said written + %d dropped, the server served %d", n, written, dropped, served.Load())
	}
	if !slices.ContainsFunc(a.Notes, func(n string) bool { return strings.Contains(n, "dropped (the file reached its cap") }) {
		t.Errorf("artifact notes say nothing of the cap: %q", a.Notes)
	}
	if ratio := rateRatio(t, plain, capped); ratio < 0.5 {
		t.Errorf("the capped run's rate is %.2f of the plain run's, beside it: the stream held up the load", ratio)
	}
}

// rateRatio is the capped step's rate over the plain step's, logged.
func rateRatio(t *testing.T, plain, capped artifacts.Step) float64 {
	t.Helper()
	ratio := (float64(capped.Requests) / capped.DurationS) / (float64(plain.Requests) / plain.DurationS)
	t.Logf("without a file %d requests in %.3fs, capped %d in %.3fs: ratio %.3f", plain.Requests, plain.DurationS, capped.Requests, capped.DurationS, ratio)
	return ratio
}

// TestRunRequestsOfOtherKinds: a spawn group's cycles are records too
// (code 200, vegeta's success, no status of their own), and an http
// group's refused connections records with code 0 and their error kind;
// each group's records are as many as its artifact counts.
func TestRunRequestsOfOtherKinds(t *testing.T) {
	t.Parallel()
	bin := benchtuiBinary(t)
	pl := writePlanText(t, `version: 1
groups:
  - id: spawned
    runner: spawn
    spawn: {command: ["true"], cycles: 10, concurrency: 1, ready: exit, timeout: 5s}
  - id: refused
    runner: http
    http: {requests: [{name: nobody, url: "http://127.0.0.1:9/x"}]}
    load: {rate: 200, max_in_flight: 4}
    duration: 300ms
`)
	out, file := t.TempDir(), filepath.Join(t.TempDir(), "requests.json")
	if code, text := runBinary(t, bin, "run", pl, "-o", out, "--requests", file); code != exitOK {
		t.Fatalf("exit %d\n%s", code, text)
	}
	arts := loadArtifacts(t, out)
	byGroup := map[string][]vegeta.Result{}
	for _, r := range decodeResults(t, file) {
		group, _, _ := strings.Cut(r.Attack, "/")
		byGroup[group] = append(byGroup[group], r)
	}
	for group, want := range map[string]struct {
		code uint16
		err  string
	}{"spawned": {200, ""}, "refused": {0, "refused"}} {
		rs := byGroup[group]
		if n := int64(len(rs)); n == 0 || n != arts[group].Steps[0].Requests {
			t.Errorf("%s: %d records, the artifact counts %d", group, n, arts[group].Steps[0].Requests)
		}
		for _, r := range rs {
			if r.Code != want.code || r.Error != want.err {
				t.Fatalf("%s: record %+v, want code %d error %q", group, r, want.code, want.err)
			}
		}
	}
}
