package examples

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/pgload"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/redisload"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// examplesDuration is the --duration the examples run with in the tests:
// every group of the three seed plans is run, so a step is kept short; the
// figures are judged by counts only.
const examplesDuration = "1s"

// examplePlans are the plans in examples/ (one per seed campaign).
func examplePlans(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) < 3 {
		t.Fatalf("examples: %v, want at least the three seed plans, got %q", err, files)
	}
	return files
}

// exampleEnv is what the example plans expand: the benchtui binary and
// free loopback addresses for the demo target.
func exampleEnv(t *testing.T, bin string) map[string]string {
	t.Helper()
	return map[string]string{"BENCHTUI": bin, "DEMO_HTTP": testbin.FreeAddr(t),
		"DEMO_QUIC": testbin.FreeUDPAddr(t), "DEMO_H3": testbin.FreeUDPAddr(t)}
}

// TestExamplesValidate: every example plan validates (benchtui validate
// exits 0 with "ok: "), with no warning on stderr.
func TestExamplesValidate(t *testing.T) {
	t.Parallel()
	bin := benchtuiBinary(t)
	env := exampleEnv(t, bin)
	for _, file := range examplePlans(t) {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, "validate", file)
		cmd.Env = withEnv(env)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil || !strings.HasPrefix(stdout.String(), "ok: ") || stderr.Len() != 0 {
			t.Errorf("validate %s: %v\nstdout: %s\nstderr: %s", file, err, &stdout, &stderr)
		}
	}
}

// withEnv is the test's environment with env added.
func withEnv(env map[string]string) []string {
	out := os.Environ()
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// exampleChunk is the groups of one example plan run by one process.
type exampleChunk struct {
	name, file string
	groups     []string
	cost       float64 // the sum of groupCost
	duration   string  // run's --duration; empty: examplesDuration
}

// chunkBudget is about how many seconds of steps one process runs: the
// plans are cut, in plan order, into chunks of about this much, run side
// by side, so that the whole test takes about as long as one chunk.
const chunkBudget = 20.0

// groupCost guesses a group's seconds at examplesDuration: a step and a
// quarter-step warmup each, a cluster start per postgres group, the
// cycles of a spawn group and the wait of a shutdown group.
func groupCost(g *plan.Group) float64 {
	cost := 1.5 * float64(len(plan.Steps(g, time.Second)))
	switch g.Runner {
	case pgload.Section:
		cost += 3
	case redisload.Section:
		cost++
	case "spawn":
		cost += 3
	case "shutdown":
		cost += 12
	}
	return cost
}

// exampleChunks cuts each plan's groups into chunks of about chunkBudget,
// leaving out the groups in skip (file/group); without Postgres binaries
// the postgres groups are left out, without redis-server the redis groups.
func exampleChunks(t *testing.T, files []string, skip map[string]bool) []exampleChunk {
	t.Helper()
	_, noPG := pgload.FindBinDir("")
	_, noRedis := exec.LookPath("redis-server")
	// Only the group list is read here: placeholders for the variables
	// without a default.
	lookup := func(name string) (string, bool) {
		switch name {
		case "BENCHTUI", "DEMO_HTTP", "DEMO_QUIC", "DEMO_H3":
			return "127.0.0.1:1", true
		}
		return "", false
	}
	var chunks []exampleChunk
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := plan.ParsePlan(file, src, lookup, kinds)
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(file), ".yaml")
		var cur exampleChunk
		spent := 0.0
		for _, g := range pl.Groups {
			if skip[file+"/"+g.ID] {
				continue
			}
			if g.Runner == pgload.Section && noPG != nil {
				t.Logf("%s: no Postgres binaries (%v): left out %s", base, noPG, g.ID)
				continue
			}
			if g.Runner == redisload.Section && noRedis != nil {
				t.Logf("%s: no redis-server (%v): left out %s", base, noRedis, g.ID)
				continue
			}
			c := groupCost(g)
			if len(cur.groups) > 0 && spent+c > chunkBudget {
				chunks = append(chunks, cur)
				cur, spent = exampleChunk{}, 0
			}
			cur.groups = append(cur.groups, g.ID)
			spent += c
			cur.cost = spent
		}
		if len(cur.groups) > 0 {
			chunks = append(chunks, cur)
		}
		for i := range chunks {
			if chunks[i].file == "" {
				chunks[i].file, chunks[i].name = file, fmt.Sprintf("%s-%s", base, chunks[i].groups[0])
			}
		}
	}
	return chunks
}

// TestExamplesRun runs every group of every example plan headless against
// the demo target on free loopback ports, one process per chunk (a
// subtest), examplesAtOnce at a time with TestExamplesFaults' runs, and
// checks that each group wrote an artifact whose every step counted
// operations. The groups a TestExamplesFaults case runs without its fault
// are left out: that run checks the same.
func TestExamplesRun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs every group of the example plans")
	}
	bin := benchtuiBinary(t)
	chunks := exampleChunks(t, examplePlans(t), runWithoutFault(t))
	// The longest first, so that the last to start are short.
	slices.SortStableFunc(chunks, func(a, b exampleChunk) int { return cmp.Compare(b.cost, a.cost) })
	for _, c := range chunks {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := exampleRun{dir: t.TempDir()}
			r.run(bin, c, exampleEnv(t, bin))
			r.check(t, c)
		})
	}
}

// exampleRun is one chunk's process: its artifacts folder and output.
type exampleRun struct {
	dir            string
	stdout, stderr bytes.Buffer
	err            error
	took, cpu      time.Duration // wall time and CPU time (the run's process and the children it waited for)
}

// addrInUse is a demo target's refusal when another process took a port
// exampleEnv found free: the runs start long after their ports are chosen.
const addrInUse = "address already in use"

// run runs the chunk, and up to twice more, afresh on new ports, when a
// target found its port taken (TestExamplesFaults/…/g7b…/fault=stale-seal
// in a whole suite).
func (r *exampleRun) run(bin string, c exampleChunk, env map[string]string) {
	for try := 1; ; try++ {
		r.runOnce(bin, c, env)
		if try == 3 || !strings.Contains(r.stderr.String(), addrInUse) {
			return
		}
		r.stdout.Reset()
		r.stderr.Reset()
		os.RemoveAll(r.dir)
		os.MkdirAll(r.dir, 0o755)
		freshPorts(env)
	}
}

// freshPorts replaces the demo target's addresses in env with ports free
// a moment ago (an address is kept when no port can be had).
func freshPorts(env map[string]string) {
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		env["DEMO_HTTP"] = ln.Addr().String()
		ln.Close()
	}
	for _, name := range []string{"DEMO_QUIC", "DEMO_H3"} {
		if pc, err := net.ListenPacket("udp", "127.0.0.1:0"); err == nil {
			env[name] = pc.LocalAddr().String()
			pc.Close()
		}
	}
}

func (r *exampleRun) runOnce(bin string, c exampleChunk, env map[string]string) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", c.file, "-o", r.dir, "--duration", cmp.Or(c.duration, examplesDuration), "-g", strings.Join(c.groups, ","))
	cmd.Env = withEnv(env)
	cmd.Stdout, cmd.Stderr = &r.stdout, &r.stderr
	start := time.Now()
	r.err = cmd.Run()
	r.took = time.Since(start)
	if ps := cmd.ProcessState; ps != nil {
		r.cpu = ps.UserTime() + ps.SystemTime() // with the children it waited for (the demo target, postgres)
	}
}

func (r *exampleRun) check(t *testing.T, c exampleChunk) {
	t.Logf("%s: %s in %s (%s of CPU)", c.file, strings.Join(c.groups, ","), r.took.Round(time.Millisecond), r.cpu.Round(time.Millisecond))
	var exit *exec.ExitError
	// A threshold may fail on a step this short (exit 1); a usage or plan
	// error (2), a crash or the timeout may not.
	if r.err != nil && (!errors.As(r.err, &exit) || exit.ExitCode() != exitFail) {
		t.Fatalf("benchtui run %s: %v%s", c.file, r.err, r.logs())
	}
	checkCounted(t, loadArtifacts(t, r.dir), c.groups)
	if t.Failed() {
		t.Log(r.logs())
	}
}

// checkCounted checks that each group wrote an artifact whose every step
// counted operations.
func checkCounted(t *testing.T, arts map[string]*artifacts.Artifact, groups []string) {
	t.Helper()
	for _, id := range groups {
		a := arts[id]
		if a == nil || len(a.Steps) == 0 {
			t.Errorf("group %s: no artifact, or one without steps", id)
			continue
		}
		for _, st := range a.Steps {
			if st.Requests <= 0 {
				t.Errorf("group %s step %s: %d operations, want some", id, st.Label, st.Requests)
			}
		}
	}
}

// logs is the run's output and its targets' logs, for a failure message.
func (r *exampleRun) logs() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n--- stdout\n%s\n--- stderr\n%s", &r.stdout, &r.stderr)
	logs, _ := filepath.Glob(filepath.Join(r.dir, "*.log"))
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		fmt.Fprintf(&b, "\n--- %s\n%s", filepath.Base(l), data)
	}
	return b.String()
}
