package examples

import (
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/pgload"
)

// faultCase runs groups of an example plan against the demo target with
// faults on (demo-target --fault, through the plans' DEMO_FAULT): each
// check in fail must be reported failed. With pass, the same groups run
// once more without the fault and those checks must hold, so the check is
// shown to tell the fault from its absence.
type faultCase struct {
	file     string // under examples/
	groups   []string
	fault    string            // DEMO_FAULT
	duration string            // run's --duration
	env      map[string]string // more variables, both runs
	// passDuration is the run without the fault's --duration, when not
	// duration (a fault that needs time to show, a pass that does not).
	passDuration string
	fail         map[string][]string
	pass         map[string][]string // nil: no run without the fault
}

// Check names as run reports them (the figure, operator and limit).
const (
	chkErrors      = "error_rate <= 0"
	chkDropped     = "dropped <= 0"
	g1RPS          = "rps >= 0.8 × previous step's rps"
	g1Linear2      = "p50 <= 7.5 × previous step's p50"
	g1Linear3to5   = "p50 <= 3.75 × previous step's p50"
	g15InFlightEnd = "in_flight.end <= offered_rps"
	g1NoLeak       = "error_kinds.sqlstate_22012 == 0"
	g8cRefused     = "error_kinds.sqlstate_53300 == 0"
	g3bDoctor      = "target.fds_per_unit between 0.85 × probes.doctor_fd_cost.last and 1.15 × probes.doctor_fd_cost.last"
	g7bLoud        = "status.409 >= 1"
	g13cFrames     = "counters.frames == 33 × requests"
)

// pgFaultPrefix marks a case's fault as the postgres groups' (PG_FAULT:
// a defect in the plan's own SQL), not the demo target's; redisFaultPrefix
// as the redis group's (REDIS_FAULT: a defect in its own script).
const (
	pgFaultPrefix    = "pg:"
	redisFaultPrefix = "redis:"
)

// faultVar is the variable a case's fault is passed in and its value.
func faultVar(fault string) (name, value string) {
	if v, ok := strings.CutPrefix(fault, pgFaultPrefix); ok {
		return "PG_FAULT", v
	}
	if v, ok := strings.CutPrefix(fault, redisFaultPrefix); ok {
		return "REDIS_FAULT", v
	}
	return "DEMO_FAULT", fault
}

// faultCases covers every check of the example groups whose stand-in is
// the demo target (examples/README.md lists, per check, the fault that
// fails it, and the checks no fault can fail). The costly first: they
// start first.
var faultCases = []faultCase{
	// The postgres groups' faults are PG_FAULT's (pgFaultPrefix): their
	// stand-in is the plan's own SQL on a throwaway cluster.
	{file: "seed-000.yaml", groups: []string{"g3a-once-consumer"}, fault: "pg:consume-unlocked", duration: "30s", env: g3aDrainWait,
		fail: map[string][]string{"g3a-once-consumer": {"no message delivered twice", "each of the step's messages delivered", "queue drained"}},
		pass: map[string][]string{"g3a-once-consumer": {chkErrors, "no message delivered twice", "each of the step's messages delivered", "queue drained"}}},
	{file: "seed-000.yaml", groups: []string{"g3a-once-consumer"}, fault: "pg:consume-nowait", duration: "30s", env: g3aDrainWait,
		fail: map[string][]string{"g3a-once-consumer": {chkErrors, "each of the step's messages delivered", "queue drained"}}},
	// G1's collapse: two faults, as one step cannot show both p50 checks
	// failing (seed-000.yaml gives the numbers at the group).
	{file: "seed-000.yaml", groups: []string{"g1-rls-queue"}, fault: "pg:stamp-collapse", duration: "10s",
		fail: map[string][]string{"g1-rls-queue": {"p99 <= 400ms", g1RPS, g1Linear2}}},
	{file: "seed-000.yaml", groups: []string{"g1-rls-queue"}, fault: "pg:stamp-collapse-late", duration: "8s",
		fail: map[string][]string{"g1-rls-queue": {g1Linear3to5}}},
	// G8c: the collapse fails the second step's throughput; the refusal
	// the third step's 53300s (no caller is refused below 100). Two rows:
	// under the collapse a busy suite's third step never reached a caller
	// past 100 (a round of its 200 callers' reads takes 27 s on the one
	// connection), so no 53300 came.
	{file: "seed-000.yaml", groups: []string{"g8c-oversubscribe"}, fault: "pg:stamp-collapse", duration: "4s",
		fail: map[string][]string{"g8c-oversubscribe": {g1RPS}}},
	{file: "seed-000.yaml", groups: []string{"g8c-oversubscribe"}, fault: "pg:callers-refused", duration: "4s",
		fail: map[string][]string{"g8c-oversubscribe": {g8cRefused}}},
	{file: "seed-000.yaml", groups: []string{"g15-slow-postgres"}, fault: "slow=15s", duration: "14s", passDuration: "3s",
		fail: map[string][]string{"g15-slow-postgres": {chkErrors, chkDropped, g15InFlightEnd, "in_flight.max <= 61", "in_flight.max <= 122", "in_flight.max <= 239"}},
		pass: map[string][]string{"g15-slow-postgres": {chkErrors, g15InFlightEnd, "in_flight.max <= 61", "in_flight.max <= 122", "in_flight.max <= 239"}}},
	{file: "seed-000.yaml", groups: []string{"g1-rls-queue", "g8c-oversubscribe"}, fault: "pg:stamp-leak,stamp-skipped", duration: "1s",
		fail: map[string][]string{"g1-rls-queue": {chkErrors, g1NoLeak}, "g8c-oversubscribe": {chkErrors}},
		// Without the fault the leak check holds; error_rate may not on a
		// busy machine: the 500 callers queued at a 1 s step's end are cut
		// (canceled, errors by design).
		pass: map[string][]string{"g1-rls-queue": {g1NoLeak}, "g8c-oversubscribe": {g8cRefused}}},
	{file: "seed-000.yaml", groups: []string{"g2-tenancy", "g9-journal"}, fault: "pg:claim-nowait,run-fails,step-unjournaled,run-no-retry", duration: "4s",
		fail: map[string][]string{"g2-tenancy": {chkErrors, "every claim a fire"}, "g9-journal": {chkErrors, "probes.backlog.max <= 16",
			"every done run has 3 steps", "steps = 3 x done runs", "backlog at the end at most the workers"}},
		pass: map[string][]string{"g9-journal": {chkErrors, "probes.backlog.max <= 16",
			"every done run has 3 steps", "steps = 3 x done runs", "backlog at the end at most the workers"}}},
	{file: "seed-000.yaml", groups: []string{"g17-search"}, fault: "pg:backfill-lease-ahead", duration: "10s", env: g17Short,
		fail: map[string][]string{"g17-search": {"backfill resumed to the end", "50000 rows embedded"}},
		pass: map[string][]string{"g17-search": {chkErrors, "backfill resumed to the end", "50000 rows embedded"}}},
	{file: "seed-000.yaml", groups: []string{"g2-tenancy", "g8a-sql", "g8b-durable-kv"}, fault: "pg:claim-unlocked,ids-reused,kv-narrow-value", duration: "1s",
		fail: map[string][]string{"g2-tenancy": {"zero duplicate fires"}, "g8a-sql": {chkErrors}, "g8b-durable-kv": {chkErrors}},
		pass: map[string][]string{"g2-tenancy": {chkErrors, "zero duplicate fires", "every claim a fire"}, "g8a-sql": {chkErrors}, "g8b-durable-kv": {chkErrors}}},
	// G11's failed starts: the demo listens 11 s late, past the spawn's
	// 10 s ready timeout, in each of 2 cycles (G11_CYCLES; the plan's
	// 100 would take 18 minutes).
	{file: "seed-000.yaml", groups: []string{"g11-cold-start"}, fault: "slow-start=11s", duration: "2m", env: g11FewCycles,
		fail: map[string][]string{"g11-cold-start": {chkErrors}},
		pass: map[string][]string{"g11-cold-start": {chkErrors, "self.rss_growth_mb <= 5.3"}}},
	// G13a's stand-in is its own token-bucket script on a throwaway
	// redis-server (REDIS_FAULT).
	{file: "seed-000.yaml", groups: []string{"g13a-gate"}, fault: "redis:off-by-one", duration: "2m",
		fail: map[string][]string{"g13a-gate": {"counters.allowed == 5000", "counters.denied == 5000"}},
		pass: map[string][]string{"g13a-gate": {chkErrors, "counters.allowed == 5000", "counters.denied == 5000"}}},
	{file: "seed-000.yaml", groups: []string{"g13a-gate"}, fault: "redis:double-take", duration: "2m",
		fail: map[string][]string{"g13a-gate": {"counters.allowed == 5000", "counters.denied == 5000"}}},
	{file: "seed-000.yaml", groups: []string{"g14-shutdown"}, fault: "hang-exit", duration: "1s", env: g14Sooner,
		fail: map[string][]string{"g14-shutdown": {"exited within grace"}}},
	// fast-work: the frozen batch, sent 2 s before the signal
	// (G14_FREEZE_LEAD), is answered at once, so none is in flight at it
	// (with the plan's 200 ms, a busy machine's 50 quick replies were
	// still in flight).
	{file: "seed-000.yaml", groups: []string{"g14-shutdown"}, fault: "fast-work", duration: "1s", env: g14FastWork,
		fail: map[string][]string{"g14-shutdown": {"counters.frozen_in_flight == 50"}}},
	{file: "seed-000.yaml", groups: []string{"g14-shutdown"}, fault: "unclean-close,errors", duration: "1s", env: g14Sooner,
		fail: map[string][]string{"g14-shutdown": {chkErrors, "counters.streams_closed_clean >= 220"}},
		pass: map[string][]string{"g14-shutdown": {chkErrors, "counters.frozen_in_flight == 50", "counters.streams_closed_clean >= 220",
			"counters.completed_after_signal >= 50", "dropped_in_flight == 0", "exited within grace"}}},
	{file: "seed-000.yaml", groups: []string{"g14-shutdown"}, fault: "no-drain,slow=2s", duration: "1s", env: g14Sooner,
		fail: map[string][]string{"g14-shutdown": {"dropped_in_flight == 0", "counters.completed_after_signal >= 50"}}},
	// 5 sessions a second held 12 s each: 60 in flight after 12 s, past
	// max_in_flight's 50.
	{file: "seed-002.yaml", groups: []string{"mcp-churn"}, fault: "slow=12s", duration: "14s",
		fail: map[string][]string{"mcp-churn": {chkDropped}}},
	{file: "seed-002.yaml", groups: []string{"mcp-churn"}, fault: "slow,errors,dedup-full", duration: "12s",
		fail: map[string][]string{"mcp-churn": {chkErrors, "by_name.initialize.p50 <= 10ms", "by_name.initialized.p50 <= 10ms",
			"by_name.mark_fetch.p50 <= 10ms", "counters.log.warn <= 40"}}},
	{file: "seed-002.yaml", groups: []string{"writes-soak"}, fault: "slow=3s,errors,bloat=64", duration: "8s",
		fail: map[string][]string{"writes-soak": {chkErrors, chkDropped, "p99 <= 86ms", "targets.pod-a.rss_mb.peak <= 54"}}},
	{file: "seed-000.yaml", groups: []string{"g3c-reconnect-storm"}, fault: "slow-start=4s,stream-cap=100", duration: "7s",
		fail: map[string][]string{"g3c-reconnect-storm": {"counters.disconnects >= 200", "counters.reconnects >= 200", "extra.backoff.max <= 2s"}}},
	// 12 s: 1,000 events pending take 5 s of the writer's 200 a second,
	// and a loaded machine sent half of them in a 6 s try.
	{file: "seed-003.yaml", groups: []string{"ingest-soak"}, fault: "stuck-queue,store-growth,no-metrics", duration: "12s", env: ingestRampShort,
		fail: map[string][]string{"ingest-soak": {"probes.pending.max <= 1000", "probes.oldest_age_ms.max <= 2000", "accepted = visible (delivery queue drained)",
			"accepted = SQL-visible (every event sent)", "accepted = SQL-visible (every ramp event sent)", "accepted = SQL-visible (the run's 120000 events)", "probes.store_bytes.tail_slope_per_min <= 65536",
			"probes.api_rss.samples >= 0.18 × duration_s"}},
		pass: map[string][]string{"ingest-soak": {"probes.pending.max <= 1000", "probes.oldest_age_ms.max <= 2000", "accepted = visible (delivery queue drained)",
			"accepted = SQL-visible (every event sent)", "accepted = SQL-visible (every ramp event sent)", "accepted = SQL-visible (the run's 120000 events)", "probes.store_bytes.tail_slope_per_min <= 65536",
			"probes.api_rss.samples >= 0.18 × duration_s"}}},
	{file: "seed-003.yaml", groups: []string{"history-seed", "history-retry", "history-facts"}, fault: "no-dedup,no-move", duration: "30s",
		fail: map[string][]string{"history-retry": {chkErrors, "SQL count of the 20 UUIDs unchanged by the retry"}, "history-facts": {chkErrors}},
		pass: map[string][]string{"history-retry": {chkErrors, "SQL count of the 20 UUIDs unchanged by the retry"}, "history-facts": {chkErrors, "requests == 3000"}}},
	{file: "seed-003.yaml", groups: []string{"history-seed", "history-facts"}, fault: "stuck-queue", duration: "3s",
		fail: map[string][]string{"history-facts": {"fact-query reads (bytes)"}},
		pass: map[string][]string{"history-facts": {"fact-query reads (bytes)"}}},
	// The cap's check, its cap made 96 MiB (API_RSS_CAP_MB) and the demo
	// holding 128 MiB.
	{file: "seed-003.yaml", groups: []string{"ingest-soak"}, fault: "bloat=128", duration: "4s",
		env:  map[string]string{"API_RSS_CAP_MB": "96", "INGEST_RAMP": "1s"},
		fail: map[string][]string{"ingest-soak": {"targets.api.rss_mb.peak <= 96"}}},
	{file: "seed-003.yaml", groups: []string{"ingest-soak"}, fault: "slow=2s,errors", duration: "4s", env: ingestRampShort,
		fail: map[string][]string{"ingest-soak": {chkErrors, chkDropped, "by_name.writer/events40.p95 <= 50.617ms",
			"by_name.reader/count.p95 <= 111.764ms"}}},
	{file: "seed-002.yaml", groups: []string{"reads-fetch-pooled"}, fault: "errors,bloat=64", duration: "1s",
		fail: map[string][]string{"reads-fetch-pooled": {chkErrors, "targets.pod-a.rss_mb.peak <= 51", "targets.pod-b.rss_mb.peak <= 51", "targets.pod-c.rss_mb.peak <= 51"}},
		pass: map[string][]string{"reads-fetch-pooled": {chkErrors, "targets.pod-a.rss_mb.peak <= 51", "targets.pod-b.rss_mb.peak <= 51", "targets.pod-c.rss_mb.peak <= 51"}}},
	{file: "seed-000.yaml", groups: []string{"g3b-sse-memory"}, fault: "fd-leak,leak,errors", duration: "4s",
		fail: map[string][]string{"g3b-sse-memory": {chkErrors, "target.fds_per_unit <= 1.5", "target.rss_slope_mb_per_min < 1"}},
		pass: map[string][]string{"g3b-sse-memory": {chkErrors, "target.fds_per_unit <= 1.5", g3bDoctor}}},
	{file: "seed-000.yaml", groups: []string{"g3b-sse-memory"}, fault: "fd-estimate", duration: "4s",
		fail: map[string][]string{"g3b-sse-memory": {g3bDoctor}}},
	{file: "seed-000.yaml", groups: []string{"g5-baseline"}, fault: "leak,errors", duration: "4s",
		fail: map[string][]string{"g5-baseline": {chkErrors, "target.rss_tail_slope_mb_per_min < 1"}}},
	{file: "seed-000.yaml", groups: []string{"g15-slow-postgres"}, fault: "leak=1024,errors", duration: "3s",
		fail: map[string][]string{"g15-slow-postgres": {chkErrors, "target.rss_growth_mb <= 23"}}},
	{file: "seed-002.yaml", groups: []string{"writes-sequential", "writes-concurrent"}, fault: "no-pacing,errors", duration: "3s",
		fail: map[string][]string{"writes-sequential": {chkErrors, "p50 between 1.4s and 1.6s"}, "writes-concurrent": {"p50 between 5.5s and 6.5s"}}},
	{file: "seed-002.yaml", groups: []string{"reads-fetch-fresh", "reads-lookup", "reads-list", "reads-mcp-fetch", "reads-mcp-lookup-all"},
		fault: "errors", duration: "1s",
		fail: map[string][]string{"reads-fetch-fresh": {chkErrors}, "reads-lookup": {chkErrors}, "reads-list": {chkErrors},
			"reads-mcp-fetch": {chkErrors}, "reads-mcp-lookup-all": {chkErrors}}},
	{file: "seed-000.yaml", groups: []string{"g6-mixed", "g10-arm-a", "g10-arm-b"}, fault: "errors,stall=300ms,stuck-queue", duration: "4s",
		fail: map[string][]string{"g6-mixed": {"error_rate <= 1e-05", "probes.loop_lag_p99.max <= 0.01", "probes.loop_lag_max.max <= 0.02",
			"once-emit drained"}, "g10-arm-a": {chkErrors}, "g10-arm-b": {chkErrors}}},
	{file: "seed-000.yaml", groups: []string{"g7b-rotate-under-read", "g13c-json-stream"}, fault: "errors,slow", duration: "3s",
		fail: map[string][]string{"g7b-rotate-under-read": {chkErrors, "windows.rotation.p99 <= 5ms"}, "g13c-json-stream": {chkErrors, g13cFrames}},
		pass: map[string][]string{"g7b-rotate-under-read": {chkErrors, g7bLoud}, "g13c-json-stream": {chkErrors, g13cFrames}}},
	{file: "seed-000.yaml", groups: []string{"g7b-rotate-under-read"}, fault: "torn", duration: "3s",
		fail: map[string][]string{"g7b-rotate-under-read": {chkErrors}}},
	{file: "seed-000.yaml", groups: []string{"g7b-rotate-under-read"}, fault: "stale-seal", duration: "3s",
		fail: map[string][]string{"g7b-rotate-under-read": {g7bLoud}}},
	{file: "seed-000.yaml", groups: []string{"g13d-channel-send"}, fault: "mail-twice,errors", duration: "30s",
		fail: map[string][]string{"g13d-channel-send": {chkErrors, "status.202 == 150", "mailbox holds exactly 150"}},
		pass: map[string][]string{"g13d-channel-send": {chkErrors, "status.202 == 150", "mailbox holds exactly 150"}}},
	{file: "seed-003.yaml", groups: []string{"history-seed"}, fault: "errors", duration: "30s",
		fail: map[string][]string{"history-seed": {chkErrors}}, pass: map[string][]string{"history-seed": {chkErrors}}},
	{file: "seed-003.yaml", groups: []string{"history-retry"}, fault: "errors", duration: "30s",
		fail: map[string][]string{"history-retry": {chkErrors}}},
	// A count cut short: slow replies and a 2 s --duration end the
	// counted step before its N.
	// (writes-burst's 200 paced publishes take over 2 minutes: no run
	// without the fault.)
	{file: "seed-002.yaml", groups: []string{"writes-burst"}, fault: "slow=1s", duration: "2s",
		fail: map[string][]string{"writes-burst": {"requests == 200"}}},
	{file: "seed-003.yaml", groups: []string{"history-seed", "history-facts"}, fault: "slow=1s", duration: "2s",
		fail: map[string][]string{"history-facts": {"requests == 3000"}}},
	{file: "seed-003.yaml", groups: []string{"history-facts"}, fault: "errors", duration: "2s",
		fail: map[string][]string{"history-facts": {chkErrors}}},
}

// g3aDrainWait: a queue the fault leaves undrained is waited for 2 s, not
// the plan's 30 s, in each of the sweep's 5 steps (2m23s a run before).
var g3aDrainWait = map[string]string{"G3A_DRAIN_WAIT": "2s"}

// ingestRampShort: seed-003 ingest-soak's ramp stage lasts 1 s, not 10,
// so that its writer's stage runs in a short try.
var ingestRampShort = map[string]string{"INGEST_RAMP": "1s"}

// g14Sooner: the signal after 4 s of load, not 10, and a grace of 10 s,
// not 30, which hang-exit waits out (41 s a run before).
var g14Sooner = map[string]string{"G14_AFTER": "4s", "G14_GRACE": "10s"}

// g14FastWork is g14Sooner with the frozen batch sent 2 s before the
// signal.
var g14FastWork = map[string]string{"G14_AFTER": "4s", "G14_GRACE": "10s", "G14_FREEZE_LEAD": "2s"}

// g11FewCycles: 2 cold starts, not 100.
var g11FewCycles = map[string]string{"G11_CYCLES": "2"}

// g17Short: the last step embeds 20,000 rows, not 100,000, and 10
// searches a second stand for the closed loop of four workers (the checks
// are the backfill's, which each step runs whole and which a closed loop
// of searches starves: 12 s steps and one searching worker still left a
// resumed backfill unfinished in a busy suite, at 18 CPU-seconds a run;
// 8 s steps and 20 searches a second took about 8, and still left it
// unfinished once, 7,000 rows short at the step's end, in a whole suite:
// each vector search over 10,000 rows costs Postgres 30–50 ms; at 10 a
// second, a busy suite cut it 1,000 rows short, one batch, so the rows
// run 10 s steps).
var g17Short = map[string]string{"G17_TOP_ROWS": "20000", "G17_WORKERS": "0", "G17_RATE": "10", "G17_IN_FLIGHT": "4"}

// faultSample is the targets' sampling in these runs (DEMO_SAMPLE): the
// plans' 5 s would leave a short step without samples.
const faultSample = "500ms"

// faultRun is one process of TestExamplesFaults: a case with its fault on
// or off.
type faultRun struct {
	c      faultCase
	faulty bool
	exampleRun
}

// TestExamplesFaults shows that every check of the example plans' demo
// groups can fail against its stand-in: each case runs with its fault on
// and must exit 1 with each named check reported failed, on stdout and in
// the artifact; the cases with pass run again without the fault, where
// those checks must hold.
func TestExamplesFaults(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the example plans against a faulty demo target")
	}
	bin := benchtuiBinary(t)
	for _, c := range runnableFaultCases(t) {
		for _, faulty := range []bool{true, false} {
			if !faulty && c.pass == nil {
				continue
			}
			r := &faultRun{c: c, faulty: faulty}
			t.Run(r.name(), func(t *testing.T) {
				t.Parallel()
				r.dir = t.TempDir()
				r.run(bin, r.chunk(), r.env(t, bin))
				r.check(t)
			})
		}
	}
}

// chunk is what the run runs: the case's groups for its duration.
func (r *faultRun) chunk() exampleChunk {
	c := exampleChunk{file: r.c.file, groups: r.c.groups, duration: r.c.duration}
	if !r.faulty && r.c.passDuration != "" {
		c.duration = r.c.passDuration
	}
	return c
}

// env is the run's variables: the demo target's addresses, the case's
// own, and its fault when on.
func (r *faultRun) env(t *testing.T, bin string) map[string]string {
	env := exampleEnv(t, bin)
	env["DEMO_SAMPLE"], env["DEMO_FAULT"], env["PG_FAULT"], env["REDIS_FAULT"] = faultSample, "", "", ""
	maps.Copy(env, r.c.env)
	if r.faulty {
		name, value := faultVar(r.c.fault)
		env[name] = value
	}
	return env
}

// runnableFaultCases are the fault cases this machine can run: the
// postgres groups' need the Postgres binaries.
func runnableFaultCases(t *testing.T) []faultCase {
	_, noPG := pgload.FindBinDir("")
	_, noRedis := exec.LookPath("redis-server")
	var cases []faultCase
	for _, c := range faultCases {
		if strings.HasPrefix(c.fault, pgFaultPrefix) && noPG != nil {
			t.Logf("no Postgres binaries (%v): left out %s", noPG, strings.Join(c.groups, ","))
			continue
		}
		if strings.HasPrefix(c.fault, redisFaultPrefix) && noRedis != nil {
			t.Logf("no redis-server (%v): left out %s", noRedis, strings.Join(c.groups, ","))
			continue
		}
		cases = append(cases, c)
	}
	return cases
}

// runWithoutFault is the set of groups some case runs without its fault:
// that run checks every step of each counted operations, so
// TestExamplesRun leaves them out.
func runWithoutFault(t *testing.T) map[string]bool {
	groups := map[string]bool{}
	for _, c := range runnableFaultCases(t) {
		if c.pass != nil {
			for _, g := range c.groups {
				groups[c.file+"/"+g] = true
			}
		}
	}
	return groups
}

// teardownCheck begins the name of the check a failed teardown adds; one
// that held adds none, only the event "action teardown: NAME: ok".
const teardownCheck = "teardown: "

// teardownHeld checks that the teardown check name held in the run.
func (r *faultRun) teardownHeld(t *testing.T, group, name string) {
	t.Helper()
	out := r.stdout.String()
	if strings.Contains(out, "check FAIL "+name+":") || !strings.Contains(out, "action "+name+": ok") {
		t.Errorf("group %s without the fault: %q did not hold", group, name)
	}
}

func (r *faultRun) name() string {
	state := "without-fault"
	if r.faulty {
		state = "fault=" + r.c.fault
	}
	return fmt.Sprintf("%s/%s/%s", strings.TrimSuffix(r.c.file, ".yaml"), strings.Join(r.c.groups, "+"), state)
}

func (r *faultRun) check(t *testing.T) {
	t.Logf("took %s (%s of CPU)", r.took.Round(time.Millisecond), r.cpu.Round(time.Millisecond))
	var exit *exec.ExitError
	if r.faulty && (!errors.As(r.err, &exit) || exit.ExitCode() != exitFail) {
		t.Errorf("with the fault: %v, want exit %d", r.err, exitFail)
	}
	if r.err != nil && (!errors.As(r.err, &exit) || exit.ExitCode() != exitFail) {
		t.Fatalf("run: %v%s", r.err, r.logs())
	}
	arts := loadArtifacts(t, r.dir)
	if !r.faulty {
		checkCounted(t, arts, r.c.groups)
	}
	want := r.c.pass
	if r.faulty {
		want = r.c.fail
	}
	for _, group := range slices.Sorted(maps.Keys(want)) {
		a := arts[group]
		if a == nil {
			t.Errorf("group %s: no artifact", group)
			continue
		}
		for _, name := range want[group] {
			if !r.faulty && strings.HasPrefix(name, teardownCheck) {
				r.teardownHeld(t, group, name)
				continue
			}
			failed, seen := 0, 0
			for _, st := range a.Steps {
				for _, c := range st.Checks {
					if c.Name == name {
						seen++
						if !c.OK {
							failed++
						}
					}
				}
			}
			onStdout := strings.Contains(r.stdout.String(), "check FAIL "+name+":")
			switch {
			case seen == 0:
				t.Errorf("group %s: no check %q in the artifact", group, name)
			case r.faulty && (failed == 0 || !onStdout):
				t.Errorf("group %s: check %q failed in %d of %d steps (stdout says FAIL: %v), want it failed", group, name, failed, seen, onStdout)
			case !r.faulty && failed > 0:
				t.Errorf("group %s without the fault: check %q failed in %d of %d steps, want it held", group, name, failed, seen)
			}
		}
	}
	if t.Failed() {
		t.Log(r.logs())
	}
}
