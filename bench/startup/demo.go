package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// demoTimes are one demo run's figures, in milliseconds, from its
// --requests log: the first operation's due time and the last one's end.
type demoTimes struct {
	runTimes
	total float64 // exec to exit
	gapAt string  // the group whose first operation followed the largest gap
}

// record is what timeDemo reads of a line of the --requests log (vegeta's
// JSON results).
type record struct {
	Attack    string    `json:"attack"`
	Timestamp time.Time `json:"timestamp"`
	Latency   int64     `json:"latency"`
}

// timeDemo runs the built-in demo plan reps times, each group cut to
// step, in an empty directory (no bench.yaml: `benchtui run` takes the
// demo), and prints its figures. The plan asks for waits of its own: its
// target is spawned and polled until ready, a cold-start group spawns 30
// processes, and the Postgres groups (when Postgres is installed) start a
// cluster; the gaps say where.
func timeDemo(bin, dir string, step time.Duration, reps int) {
	var runs []runTimes
	var totals []float64
	gapAt := map[string]int{}
	for range reps {
		d, err := demoOnce(bin, dir, step)
		if err != nil {
			fail(err)
		}
		runs, totals = append(runs, d.runTimes), append(totals, d.total)
		gapAt[d.gapAt]++
	}
	fmt.Printf("\nThe built-in demo plan, groups cut to %s, %d runs (median, min–max, ms); the largest gap came before %v\n\n", step, reps, gapAt)
	fmt.Println("| plan | run → first operation | largest gap between groups | last reply → artifact | last reply → exit | whole run |")
	fmt.Println("|---|---|---|---|---|---|")
	fmt.Printf("| demo | %s | %s | %s | %s | %s |\n", spread(runs, func(r runTimes) float64 { return r.toFirst }),
		spread(runs, func(r runTimes) float64 { return r.gapMax }), spread(runs, func(r runTimes) float64 { return r.toArtifact }),
		spread(runs, func(r runTimes) float64 { return r.toExit }), spreadOf(totals))
}

// demoOnce is one run of the demo plan.
func demoOnce(bin, dir string, step time.Duration) (demoTimes, error) {
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return demoTimes{}, err
	}
	log := filepath.Join(dir, "requests.json")
	cmd := exec.Command(bin, "run", "-o", "out", "--duration", step.String(), "--requests", log)
	cmd.Dir = dir
	start := time.Now()
	if b, err := cmd.CombinedOutput(); err != nil {
		if _, exit := err.(*exec.ExitError); !exit {
			return demoTimes{}, fmt.Errorf("%s run (demo): %v\n%s", bin, err, b)
		} // a check the cut steps fail is no matter here
	}
	exited := time.Now()
	groups, err := readGroups(log)
	if err != nil {
		return demoTimes{}, err
	}
	var d demoTimes
	d.total = ms(exited.Sub(start))
	d.toFirst = ms(groups[0].first.Sub(start))
	for k := 1; k < len(groups); k++ {
		if gap := ms(groups[k].first.Sub(groups[k-1].last)); gap > d.gapMax {
			d.gapMax, d.gapAt = gap, groups[k].name
		}
	}
	last := groups[len(groups)-1].last
	written, err := newestFile(filepath.Join(dir, "out"))
	if err != nil {
		return d, err
	}
	d.toArtifact, d.toExit = ms(written.Sub(last)), ms(exited.Sub(last))
	return d, nil
}

// namedTimes are a group's first operation and last reply in the log.
type namedTimes struct {
	name string
	groupTimes
}

// readGroups reads the --requests log into its groups, in the order they
// first appear (the plan's order: groups run one after another).
func readGroups(path string) ([]namedTimes, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []namedTimes
	at := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		group, _, _ := strings.Cut(r.Attack, "/") // GROUP/STEP
		i, ok := at[group]
		if !ok {
			i, at[group] = len(out), len(out)
			out = append(out, namedTimes{name: group, groupTimes: groupTimes{first: r.Timestamp}})
		}
		g := &out[i]
		if r.Timestamp.Before(g.first) {
			g.first = r.Timestamp
		}
		if end := r.Timestamp.Add(time.Duration(r.Latency)); end.After(g.last) {
			g.last = end
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no operation logged", path)
	}
	return out, nil
}
