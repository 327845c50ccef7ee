package watch

import (
	"os"
	"strconv"
	"strings"
)

// SampleTree samples process pid and all its descendants, summed: the
// resources of a server that forks a worker per connection (Postgres, a
// pre-fork web server) are mostly in its children. Memory shared between
// them (Postgres's shared buffers) is counted once per process that has
// touched it, as RSS does: the sum overstates the total, and its growth
// includes shared pages as they are first touched.
func SampleTree(pid int) (Sample, error) {
	total, err := SampleProc(pid)
	if err != nil {
		return Sample{}, err
	}
	for _, child := range descendants(pid) {
		s, err := SampleProc(child)
		if err != nil {
			continue // it exited between the listing and the read
		}
		total.RSSBytes += s.RSSBytes
		total.FDs += s.FDs
		total.Threads += s.Threads
		total.CPUSeconds += s.CPUSeconds
	}
	return total, nil
}

// NewTreeSampler returns a Sampler of process pid and its descendants.
func NewTreeSampler(pid int) *Sampler {
	return newSampler(func() (Sample, error) { return SampleTree(pid) })
}

// descendants lists the processes below pid, from the children files of
// its threads (/proc/PID/task/TID/children).
func descendants(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 && len(out) < 100_000 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children(p) {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

func children(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}
