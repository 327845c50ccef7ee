package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/livemerge"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/reap"
	"github.com/benchtui/benchtui/runners/watch"
)

// watchFlags are the flags of `benchtui watch`.
type watchFlags struct {
	kubectl, console string
	stale            time.Duration
	once             bool
}

func watchFlagSet(f *watchFlags) *flag.FlagSet {
	fs := flagSet("watch")
	fs.StringVar(&f.kubectl, "kubectl", "kubectl", "the kubectl that follows k8s:NS/JOB")
	fs.DurationVar(&f.stale, "stale", 5*time.Second, "a shard silent this long is shown stale")
	fs.BoolVar(&f.once, "once", false, "DIR: read what the logs hold, print the merged figures once and exit")
	fs.StringVar(&f.console, "console", "", "open the console on the run, with this `PLAN` (the one the shards run)")
	return fs
}

// cmdWatch follows the live lines of a distributed run's shards, from
// `kubectl logs -f` of a Job's pods or from the logs in a folder (SSH
// runs: each shard's stderr saved there), and prints their merged figures
// once a second: the step every shard is on, the latency percentiles of
// the whole (the shards' histograms merged), and each shard's lag.
func cmdWatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f watchFlags
	fs := watchFlagSet(&f)
	fs.SetOutput(stderr)
	pos, err := parseInterspersed(fs, args)
	if err != nil || len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: benchtui watch k8s:NS/JOB|DIR [--stale 5s] [--once]")
		return exitUsage
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lines, ended, err := liveSource(ctx, pos[0], f)
	if err != nil {
		complain(stderr, "benchtui watch", err)
		return exitUsage
	}
	if f.console != "" {
		return watchConsole(ctx, f.console, f.stale, lines, stdout, stderr)
	}
	r := livemerge.NewRun(nil)
	r.Follow(ctx, lines, func(end bool) {
		if r.Seen() || end {
			fmt.Fprintln(stdout, r.Status(time.Now(), f.stale))
		}
	})
	if ctx.Err() != nil {
		return exitFail
	}
	if err := ended(); err != nil {
		complain(stderr, "benchtui watch", err)
		return exitFail
	}
	return exitOK
}

// watchConsole opens the console on a distributed run: its groups are
// those of the plan, each followed (enter, or a for all) through the
// shards' merged live lines. What it exports on quit is the live view,
// marked so, in a folder of its own: merge gives the run's artifact.
func watchConsole(ctx context.Context, planPath string, stale time.Duration, lines <-chan string, stdout, stderr io.Writer) int {
	pl, err := plan.LoadPlan(planPath, kinds)
	if err != nil {
		complain(stderr, "benchtui watch", err)
		return exitUsage
	}
	out, ok := stdoutFile(stdout)
	if !ok {
		fmt.Fprintln(stderr, "benchtui watch: --console needs a terminal")
		return exitUsage
	}
	dir, err := os.MkdirTemp("", "benchtui-watch-")
	if err != nil {
		complain(stderr, "benchtui watch", err)
		return exitFail
	}
	logf, err := openConsoleLog(dir)
	if err != nil {
		complain(stderr, "benchtui watch", err)
		return exitFail
	}
	defer logf.Close()
	r := livemerge.NewRun(pl)
	r.Stale = stale
	go r.Follow(ctx, lines, r.Publish)
	fmt.Fprintln(logf, "live view of a distributed run; its exports go to", dir)
	return console(ctx, consoleOn{eng: r, pl: pl, dir: dir}, nil, logf, out, stderr)
}

// liveSource sends the log lines of src: k8s:NS/JOB or a folder. Once
// the lines have ended, ended tells why when it was not the source's
// normal end (kubectl failed, or printed nothing).
func liveSource(ctx context.Context, src string, f watchFlags) (lines <-chan string, ended func() error, err error) {
	if ref, ok := strings.CutPrefix(src, "k8s:"); ok {
		ns, job, ok := strings.Cut(ref, "/")
		if !ok || ns == "" || job == "" {
			return nil, nil, fmt.Errorf("%s: want k8s:NAMESPACE/JOB", src)
		}
		return followKubectl(ctx, f.kubectl, ns, job)
	}
	if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		return nil, nil, fmt.Errorf("%s: want k8s:NS/JOB or a folder of shard logs", src)
	}
	out := make(chan string, 256)
	go tailDir(ctx, src, f.once, out)
	return out, func() error { return nil }, nil
}

// followKubectl runs kubectl logs -f on every pod of the Job; the lines
// end when kubectl does (every pod done) or ctx does. ended is kubectl's
// failure, with its stderr, and an error too when it printed no line: a
// real kubectl exits 0 with nothing on stdout when no pod has the label
// (saying "No resources found" on stderr) or the pods have not run.
func followKubectl(ctx context.Context, kubectlPath, ns, job string) (<-chan string, func() error, error) {
	cmd := exec.CommandContext(ctx, kubectlPath, "-n", ns, "logs", "-f", "-l", "job-name="+job,
		"--prefix", "--tail=-1", "--max-log-requests=1000")
	var errOut bytes.Buffer
	cmd.Stderr = &limitedBuffer{b: &errOut, n: 64 << 10}
	r, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.SysProcAttr = reap.OwnGroup(nil)
	release, err := watch.StartTied(cmd)
	if err != nil {
		return nil, nil, err
	}
	out := make(chan string, 256)
	done := make(chan error, 1)
	go func() {
		defer close(out)
		n := scanLines(ctx, r, out)
		err := cmd.Wait()
		release()
		switch {
		case ctx.Err() != nil:
			err = nil
		case err != nil:
			err = fmt.Errorf("kubectl logs -f -l job-name=%s: %w: %s", job, err, strings.TrimSpace(errOut.String()))
		case n == 0:
			said := strings.TrimSpace(errOut.String())
			if said != "" {
				said = " (" + said + ")"
			}
			err = fmt.Errorf("k8s:%s/%s: kubectl logs -f -l job-name=%s printed nothing%s: no pod of that Job in namespace %s, or none has run",
				ns, job, job, said, ns)
		}
		done <- err
	}()
	return out, func() error { return <-done }, nil
}

// scanLines sends r's lines until it ends, and returns how many it sent;
// a line longer than maxLiveLine is skipped.
func scanLines(ctx context.Context, r io.Reader, out chan<- string) (n int) {
	br := bufio.NewReaderSize(r, maxLiveLine)
	for {
		line, _, err := artifacts.ReadLine(br)
		if len(line) > 0 {
			select {
			case out <- strings.TrimRight(string(line), "\n"):
				n++
			case <-ctx.Done():
				return n
			}
		}
		if err != nil {
			return n
		}
	}
}

// tailDir sends the lines of every file in dir as they are written,
// polling every 250 ms; once, it sends what is there and closes.
func tailDir(ctx context.Context, dir string, once bool, out chan<- string) {
	defer close(out)
	offsets := map[string]int64{}
	for {
		names, _ := filepath.Glob(filepath.Join(dir, "*"))
		sort.Strings(names)
		for _, name := range names {
			offsets[name] = readFrom(ctx, name, offsets[name], out)
		}
		if once || ctx.Err() != nil {
			return
		}
		t := time.NewTimer(250 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// readFrom sends the whole lines of file name past offset and returns the
// offset after the last whole line.
func readFrom(ctx context.Context, name string, offset int64, out chan<- string) int64 {
	if fi, err := os.Stat(name); err != nil || !fi.Mode().IsRegular() {
		return 0 // a FIFO would block the open until a writer came
	}
	f, err := os.Open(name)
	if err != nil {
		return offset
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() < offset {
		return 0 // not a file, or truncated: from the start next time
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return offset
	}
	br := bufio.NewReaderSize(f, maxLiveLine)
	for {
		line, n, err := artifacts.ReadLine(br)
		if err != nil {
			return offset // a partial last line waits for its end
		}
		offset += n
		if line == nil {
			continue // no live line: skipped
		}
		select {
		case out <- strings.TrimRight(string(line), "\n"):
		case <-ctx.Done():
			return offset
		}
	}
}

// maxLiveLine bounds a line read from a shard's log: a live line is a few
// kilobytes, a longer line is something else and skipped unread.
const maxLiveLine = 1 << 20

// complain prints err on stderr after who, its control characters but
// the newlines between its lines escaped (and URL passwords hidden): a
// file's name or kubectl's message must not reach the terminal raw.
func complain(stderr io.Writer, who string, err error) {
	var noPlan *plan.Plan // redacts what any text needs, without a plan's secrets
	fmt.Fprintln(stderr, who+":", noPlan.Redact(err.Error()))
}
