// Command startup measures what a run costs around its load: the time
// from `benchtui run` to the first request a loopback server sees, the
// gap between one group's last reply and the next group's first request,
// and the time from the last reply to the artifact written and to the
// process's exit; and how long `benchtui validate` takes for a plan.
//
// It writes a plan of N groups (each a closed loop of one worker on its
// own path for -step), starts a counting server on 127.0.0.1, runs the
// benchtui binary -reps times for 1 and 40 groups, and prints the
// median and the spread of each figure. bench/startup.sh builds the
// binary and runs it.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// groupTimes are the server's first request and last reply of a group.
type groupTimes struct{ first, last time.Time }

// server counts each group's requests by path (/g/K) and keeps the times.
type server struct {
	mu     sync.Mutex
	groups map[int]*groupTimes
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	k, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/g/"))
	if err != nil || k < 0 || k > 1000 {
		http.NotFound(w, r)
		return
	}
	w.WriteHeader(http.StatusNoContent)
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groups[k]
	if g == nil {
		g = &groupTimes{first: now}
		s.groups[k] = g
	}
	g.last = time.Now()
}

func (s *server) reset() {
	s.mu.Lock()
	s.groups = map[int]*groupTimes{}
	s.mu.Unlock()
}

// runTimes are one run's figures, in milliseconds.
type runTimes struct {
	toFirst, gapMax, toArtifact, toExit float64
}

func main() {
	bin := flag.String("bin", "benchtui", "the benchtui binary")
	reps := flag.Int("reps", 5, "runs of each plan")
	step := flag.Duration("step", 200*time.Millisecond, "each group's duration")
	validate := flag.String("validate", "", "comma-separated plans to time `benchtui validate` on as well")
	demoReps := flag.Int("demo", 0, "also time `N` runs of the built-in demo plan (its target spawned, each group cut to -step)")
	flag.Parse()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	srv := &server{groups: map[int]*groupTimes{}}
	go http.Serve(ln, srv)
	dir, err := os.MkdirTemp("", "benchtui-startup-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	fmt.Printf("benchtui %s, groups of %s each, %d runs a plan (median, min–max, ms)\n\n", *bin, *step, *reps)
	fmt.Println("| plan | run → first request | largest gap between groups | last reply → artifact | last reply → exit | validate |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, n := range []int{1, 40} {
		path := filepath.Join(dir, fmt.Sprintf("plan-%d.yaml", n))
		if err := os.WriteFile(path, planOf(n, ln.Addr().String(), *step), 0o644); err != nil {
			fail(err)
		}
		var runs []runTimes
		for range *reps {
			srv.reset()
			r, err := runOnce(*bin, path, filepath.Join(dir, "out"), srv, n)
			if err != nil {
				fail(err)
			}
			runs = append(runs, r)
		}
		v := timeValidate(*bin, path, *reps)
		fmt.Printf("| %d groups | %s | %s | %s | %s | %s |\n", n, spread(runs, func(r runTimes) float64 { return r.toFirst }),
			spread(runs, func(r runTimes) float64 { return r.gapMax }), spread(runs, func(r runTimes) float64 { return r.toArtifact }),
			spread(runs, func(r runTimes) float64 { return r.toExit }), spreadOf(v))
	}
	if *demoReps > 0 {
		timeDemo(*bin, filepath.Join(dir, "demo"), *step, *demoReps)
	}
	if *validate != "" {
		fmt.Println("\n| plan | validate |")
		fmt.Println("|---|---|")
		for _, p := range strings.Split(*validate, ",") {
			fmt.Printf("| %s | %s |\n", p, spreadOf(timeValidate(*bin, p, *reps)))
		}
	}
}

// planOf is a plan of n groups, group k a closed loop of one worker on
// /g/k for step.
func planOf(n int, addr string, step time.Duration) []byte {
	var b strings.Builder
	b.WriteString("version: 1\ngroups:\n")
	for k := range n {
		fmt.Fprintf(&b, "  - {id: g%02d, runner: http, http: {requests: [{url: \"http://%s/g/%d\"}]}, load: {concurrency: 1}, duration: %s}\n", k, addr, k, step)
	}
	return []byte(b.String())
}

// runOnce runs the plan and reads the server's times and the newest
// artifact's modification time against the process's start and exit.
func runOnce(bin, plan, out string, srv *server, n int) (runTimes, error) {
	os.RemoveAll(out)
	cmd := exec.Command(bin, "run", plan, "-o", out)
	start := time.Now()
	if b, err := cmd.CombinedOutput(); err != nil {
		return runTimes{}, fmt.Errorf("%s run: %v\n%s", bin, err, b)
	}
	exited := time.Now()
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.groups) != n {
		return runTimes{}, fmt.Errorf("the server saw %d groups, want %d", len(srv.groups), n)
	}
	var r runTimes
	r.toFirst = ms(srv.groups[0].first.Sub(start))
	for k := 1; k < n; k++ {
		r.gapMax = max(r.gapMax, ms(srv.groups[k].first.Sub(srv.groups[k-1].last)))
	}
	last := srv.groups[n-1].last
	written, err := newestFile(out)
	if err != nil {
		return r, err
	}
	r.toArtifact, r.toExit = ms(written.Sub(last)), ms(exited.Sub(last))
	return r, nil
}

// newestFile is the latest modification time of the files in dir.
func newestFile(dir string) (time.Time, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return time.Time{}, err
	}
	var newest time.Time
	for _, e := range ents {
		if info, err := e.Info(); err == nil && info.ModTime().After(newest) {
			newest = info.ModTime()
		}
	}
	if newest.IsZero() {
		return newest, fmt.Errorf("no artifact in %s", dir)
	}
	return newest, nil
}

// timeValidate is reps timings of `benchtui validate plan`, in ms.
func timeValidate(bin, plan string, reps int) []float64 {
	var out []float64
	for range reps {
		start := time.Now()
		if b, err := exec.Command(bin, "validate", plan).CombinedOutput(); err != nil {
			fail(fmt.Errorf("%s validate %s: %v\n%s", bin, plan, err, b))
		}
		out = append(out, ms(time.Since(start)))
	}
	return out
}

func spread(runs []runTimes, f func(runTimes) float64) string {
	var v []float64
	for _, r := range runs {
		v = append(v, f(r))
	}
	return spreadOf(v)
}

// spreadOf is "median (min–max)".
func spreadOf(v []float64) string {
	s := slices.Clone(v)
	slices.Sort(s)
	return fmt.Sprintf("%.1f (%.1f–%.1f)", s[len(s)/2], s[0], s[len(s)-1])
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "startup:", err)
	os.Exit(1)
}
