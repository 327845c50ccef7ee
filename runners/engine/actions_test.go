package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
	"github.com/benchtui/benchtui/runners/sse"
)

// freeAddr is a loopback address with a port free a moment ago: a target
// restarted by an action listens on it again.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// runPlan runs the plan's only group through a Run, as `benchtui run`
// does, and returns its artifact and every snapshot's target sample.
func runPlan(t *testing.T, reg *runners.Registry, src string) (*artifacts.Artifact, []ProcSample) {
	t.Helper()
	p, err := plan.ParsePlan("test.yaml", []byte(src), func(string) (string, bool) { return "", false }, reg)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRun(p, reg, t.TempDir(), "test")
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := r.Session(ctx, p.Groups[0])
	if err != nil {
		t.Fatal(err)
	}
	s.Start(ctx)
	var samples []ProcSample
	for snap := range s.Snapshots() {
		if snap.Target != nil {
			samples = append(samples, *snap.Target)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return s.Result(), samples
}

func eventsOf(st artifacts.Step, kind string) []artifacts.Event {
	var out []artifacts.Event
	for _, e := range st.Events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

func alivePID(pid int) bool {
	_, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid)))
	return err == nil
}

// A KILL of the spawned server and its restart mid-step: the subscribers
// drop and reconnect, the step runs to its end, and the target's samples
// after the restart are the new process's.
func TestActionKillAndRestartFollowsNewPID(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("needs /proc")
	}
	bin := testbin.Build(t, "./testdata/sseserver")
	addr := freeAddr(t)
	src := fmt.Sprintf(`version: 1
targets:
  srv: {command: [%q, -addr, %q], ready: "http://%s/healthz", sample: 200ms}
groups:
  - id: E1
    runner: sse
    target: srv
    sse: {url: "http://%s/events", subscribers: 20, reconnect: true}
    duration: 5s
    actions:
      - {at: 1s, signal: KILL}
      - {at: 1200ms, restart: true}
`, bin, addr, addr, addr)
	a, samples := runPlan(t, runners.MustRegistry(sse.Kind()), src)
	st := a.Steps[0]
	for _, e := range st.Events {
		t.Logf("t=%.3f %s: %s %+v", e.T, e.Kind, e.Note, e.Action)
	}
	kill := eventsOf(st, artifacts.EventAction)
	restarted := eventsOf(st, artifacts.EventTargetRestarted)
	if len(kill) != 1 || len(restarted) != 1 {
		t.Fatalf("want one action and one target_restarted event, got %+v", st.Events)
	}
	k, rs := kill[0].Action, restarted[0].Action
	if !k.OK || k.Kind != "signal" || k.AtS != 1 || kill[0].T < 1 {
		t.Errorf("kill action: %+v at t=%v", k, kill[0].T)
	}
	if !rs.OK || rs.OldPID != k.PID || rs.PID == k.PID || rs.PID == 0 {
		t.Errorf("restart: %+v, killed pid %d", rs, k.PID)
	}
	if ex := eventsOf(st, artifacts.EventTargetExited); len(ex) != 1 || !strings.Contains(ex[0].Note, "by an action") {
		t.Errorf("target_exited events: %+v", ex)
	}
	if len(eventsOf(st, artifacts.EventStopped)) > 0 || st.DurationS < 4.5 {
		t.Errorf("the kill stopped the step: %.1fs, events %+v", st.DurationS, st.Events)
	}
	for _, c := range st.Checks {
		if !c.OK {
			t.Errorf("failed check %+v", c)
		}
	}
	if st.Counters["disconnects"] == 0 || st.Counters["reconnects"] == 0 {
		t.Errorf("counters %v: want disconnects and reconnects", st.Counters)
	}
	fromNew := 0
	for _, s := range samples {
		if s.PID == rs.PID && s.RSSMB > 0 {
			fromNew++
		}
	}
	if fromNew == 0 {
		t.Errorf("no sample came from the new pid %d: %+v", rs.PID, samples)
	}
	if alivePID(rs.PID) || alivePID(k.PID) {
		t.Errorf("pid %d or %d still runs after the run's Close", rs.PID, k.PID)
	}
}

// actionPlan is a plan of the sleep kind with the given actions.
func actionPlan(duration, actions string) string {
	return fmt.Sprintf(`version: 1
groups:
  - id: A1
    runner: sleep
    sleep: {delay: 5ms}
    load: {concurrency: 2}
    duration: %s
    actions:
%s`, duration, actions)
}

// An exec action every 300 ms over a 2 s step runs at 300 ms, 600 ms, …
// of the step's active time (six times on an idle machine; fewer on a
// starved one, where a run still going when the next is due makes that
// one skipped: 4 seen beside other tests), each at a distinct multiple of
// 300 ms, and each event carries the exit code; a hanging command is
// killed at its timeout. The count is judged against the step's own
// measured time, not the planned 2 s: on a starved machine the clock ends
// the step late and the runs due in that late time are the step's (8 were
// seen), plus one that may come due as the step turns to its drain.
func TestActionExecEveryAndTimeout(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "runs")
	actions := fmt.Sprintf(`      - {every: 300ms, exec: ["sh", "-c", "echo run >> %s"]}
      - {at: 500ms, exec: ["sh", "-c", "sleep 30"], timeout: 300ms}
      - {at: 10s, exec: ["true"]}
`, file)
	a, _ := runPlan(t, testRegistry, actionPlan("2s", actions))
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	st := a.Steps[0]
	runs := strings.Count(string(b), "run\n")
	if limit := int(st.DurationS/0.3) + 1; runs < 2 || runs > limit {
		t.Errorf("the command ran %d times in a step of %.3f s, want 2 to %d (6 on an idle machine)", runs, st.DurationS, limit)
	}
	var ok, hung int
	due := map[int]bool{} // the every action's runs, by their multiple of 300 ms
	for _, e := range eventsOf(st, artifacts.EventAction) {
		r := e.Action
		switch {
		case r.ExitCode != nil && *r.ExitCode == 0 && r.OK:
			ok++
			k := int(math.Round(r.AtS / 0.3))
			if k < 1 || math.Abs(r.AtS-0.3*float64(k)) > 0.001 || due[k] {
				t.Errorf("a run due at %.3f s: want each run at its own multiple of 300 ms (so far %v)", r.AtS, due)
			}
			due[k] = true
		case strings.Contains(r.Error, "timeout after 300ms"):
			hung++
			if r.DurationMS > 2000 {
				t.Errorf("the hanging command took %.0f ms to kill", r.DurationMS)
			}
		default:
			t.Errorf("unexpected action result %+v", r)
		}
	}
	if ok != runs || hung != 1 {
		t.Errorf("%d ok events for %d runs, %d timeouts", ok, runs, hung)
	}
	notes := eventsOf(st, artifacts.EventNote)
	if !slices.ContainsFunc(notes, func(e artifacts.Event) bool { return strings.Contains(e.Note, "not run: past the step's end") }) {
		t.Errorf("notes %+v: want the action at 10s noted as not run", notes)
	}
}

// startSession starts a session of the plan's first group of the sleep
// kind, without a Run; vars are the plan's environment.
func startSession(t *testing.T, src string, vars map[string]string) *Session {
	t.Helper()
	lookup := func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	p, err := plan.ParsePlan("test.yaml", []byte(src), lookup, testRegistry)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(testRegistry, p, p.Groups[0], SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(context.Background())
	return s
}

// A pause delays the actions: their schedule is active time.
func TestActionPauseDelays(t *testing.T) {
	s := startSession(t, actionPlan("2s", "      - {at: 600ms, exec: [\"true\"]}\n"), nil)
	var pausedAt time.Time
	for snap := range s.Snapshots() {
		if pausedAt.IsZero() && snap.Phase == PhaseMeasure && snap.Elapsed >= 300*time.Millisecond {
			if s.Pause() {
				pausedAt = time.Now()
				time.AfterFunc(time.Second, func() { s.Resume() })
			}
		}
	}
	st := s.Result().Steps[0]
	ev := eventsOf(st, artifacts.EventAction)
	if len(ev) != 1 || ev[0].T < 0.6 || ev[0].T > 1.2 { // 0.6 s of active time, whatever the load on the machine
		t.Fatalf("action events %+v: want one at about 0.6 s of active time", ev)
	}
	if st.PausedS < 0.9 {
		t.Errorf("paused %.2fs, want about 1s", st.PausedS)
	}
}

// An http action mid-step reaches the loopback server (its count is the
// truth), and no secret of its URL or headers reaches the artifact.
func TestActionHTTPCountedAndRedacted(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer tok-s3cr3t" {
			hits.Add(1)
		}
	}))
	defer srv.Close()
	u := strings.Replace(srv.URL, "http://", "http://admin:pw-hunter2@", 1) + "/admin/rotate"
	src := actionPlan("1s", fmt.Sprintf(`      - {every: 200ms, http: {method: POST, url: %q, headers: {Authorization: "Bearer ${API_TOKEN}"}}}
`, u))
	s := startSession(t, src, map[string]string{"API_TOKEN": "tok-s3cr3t"})
	for range s.Snapshots() {
	}
	a := s.Result()
	ev := eventsOf(a.Steps[0], artifacts.EventAction)
	if len(ev) < 3 || int64(len(ev)) != hits.Load() {
		t.Errorf("%d action events, the server counted %d", len(ev), hits.Load())
	}
	for _, e := range ev {
		if !e.Action.OK || e.Action.Status != 200 {
			t.Errorf("event %+v", e.Action)
		}
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "hunter2") || strings.Contains(string(b), "tok-s3cr3t") {
		t.Errorf("a secret reached the artifact: %s", b)
	}
}

// A target that exits by itself after a restart action started it again
// is no action's doing: its exit is reported as the target's own and
// fails the step, while the restart's stop of the first one is by the
// action.
func TestExitAfterRestartIsTheTargets(t *testing.T) {
	t.Parallel()
	flag := filepath.Join(t.TempDir(), "started-once")
	src := fmt.Sprintf(`version: 1
targets:
  srv: {command: ["sh", "-c", "if [ -e %[1]s ]; then echo up; sleep 0.3; exit 3; fi; touch %[1]s; echo up; exec sleep 60"], ready: "stdout:/up/", stop_grace: 1s}
groups:
  - id: R
    runner: sleep
    target: srv
    sleep: {delay: 10ms}
    load: {concurrency: 1}
    duration: 3s
    actions:
      - {at: 300ms, restart: true}
`, flag)
	a, _ := runPlan(t, testRegistry, src)
	st := a.Steps[0]
	ex := eventsOf(st, artifacts.EventTargetExited)
	for _, e := range st.Events {
		t.Logf("t=%.3f %s: %s", e.T, e.Kind, e.Note)
	}
	if len(ex) != 2 || !strings.Contains(ex[0].Note, "by an action") || strings.Contains(ex[1].Note, "by an action") ||
		!strings.Contains(ex[1].Note, "exit 3") {
		t.Fatalf("target_exited events %+v: want the restart's stop by the action, then the new process's own exit 3", ex)
	}
	if c := slices.IndexFunc(st.Checks, func(c artifacts.Check) bool { return c.Name == "target" && !c.OK }); c < 0 {
		t.Errorf("checks %+v: want the target's own exit to fail the step", st.Checks)
	}
}
