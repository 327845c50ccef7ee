#!/usr/bin/env bash
# pg-vs-pgbench.sh: benchtui's postgres runner against pgbench on one
# throwaway cluster, same client count, same statements, interleaved.
#
#   bench/pg-vs-pgbench.sh            # 3 repetitions of 10 s per tool and workload
#   REPS=5 DUR=20 CLIENTS=16 bench/pg-vs-pgbench.sh
#   CONNECTION=per-worker bench/pg-vs-pgbench.sh   # benchtui's postgres.connection
#   PIPELINE=8 bench/pg-vs-pgbench.sh               # benchtui's postgres.pipeline (pgbench's is not)
#   CLIENT=epoll bench/pg-vs-pgbench.sh             # benchtui's postgres.client
#   PIN=1 bench/pg-vs-pgbench.sh                    # the server on cpu1, each client on cpu0
#
# Workloads: "select1" (pgbench -f with SELECT 1;) and "select-only"
# (pgbench -S: SELECT abalance FROM pgbench_accounts WHERE aid = random).
# Both tools connect over TCP to 127.0.0.1. pgbench runs twice, with its
# default simple protocol (pgb_simp) and with -M prepared (pgb_prep);
# benchtui uses prepared statements cached per connection (its default).
# r_simp and r_prep are benchtui / pgbench; us_* are client CPU µs per
# operation. Lines are interleaved (pgbench, pgbench -M prepared, benchtui)
# so drift in the machine's load hits all three alike.
# benchtui runs the real headless CLI (`benchtui run`) and its figure is the
# artifact's throughput_rps (no warmup: its pool is opened and warmed
# before the clock starts).
set -euo pipefail
cd "$(dirname "$0")/.."

REPS=${REPS:-3} DUR=${DUR:-10} CLIENTS=${CLIENTS:-8} THREADS=${THREADS:-2} SCALE=${SCALE:-10}
CONNECTION=${CONNECTION:-} PIPELINE=${PIPELINE:-} CLIENT=${CLIENT:-} # empty: the plan does not set it

command -v jq >/dev/null || { echo "no jq: apt-get install jq" >&2; exit 2; }
. bench/pg-cluster.sh # sets TMP, BIN, PORT, DSN; loads pgbench -i -s $SCALE
# PIN=1 is the pinned setup of http-vs-peers.sh: the server (postmaster,
# its children and the backends it forks) on cpu1, the client on cpu0, so
# that a client's CPU per query is what decides its throughput.
ON_CPU0=()
if [ -n "${PIN:-}" ]; then
	postmaster=$(head -1 "$TMP/data/postmaster.pid")
	for pid in "$postmaster" $(pgrep -P "$postmaster"); do taskset -a -p -c 1 "$pid" >/dev/null; done
	ON_CPU0=(taskset -c 0)
fi
echo 'SELECT 1;' >"$TMP/select1.sql"

go build -o "$TMP/benchtui" ./cmd/benchtui
cat >"$TMP/plan.yaml" <<EOF
version: 1
groups:
  - id: select1
    runner: postgres
    postgres:
      dsn: $DSN
      ${CONNECTION:+connection: $CONNECTION}
      ${PIPELINE:+pipeline: $PIPELINE}
      ${CLIENT:+client: $CLIENT}
      statements: [{name: select1, sql: "SELECT 1"}]
    load: {concurrency: $CLIENTS}
    warmup: 0s
    duration: ${DUR}s
  - id: select-only
    runner: postgres
    postgres:
      dsn: $DSN
      ${CONNECTION:+connection: $CONNECTION}
      ${PIPELINE:+pipeline: $PIPELINE}
      ${CLIENT:+client: $CLIENT}
      statements:
        - {name: select-only, sql: "SELECT abalance FROM pgbench_accounts WHERE aid = \$1", args: ["\$rand_int:1:$((SCALE * 100000))"]}
    load: {concurrency: $CLIENTS}
    warmup: 0s
    duration: ${DUR}s
EOF

# Each function prints "<ops per second> <client CPU µs per op> <errors>".
# The CPU figure (user + sys of the client process over its whole run, per
# operation) is steadier than throughput on a shared box: every µs the
# client spends is a µs the server's backends do not get on these cores.
TIMEFORMAT='%U %S'
pgbench_run() { # workload protocol
	local args=(-f "$TMP/select1.sql") out="$TMP/pgbench-$RANDOM"
	[ "$1" = select-only ] && args=(-S)
	{ time "${ON_CPU0[@]}" pgbench -n -M "$2" -c "$CLIENTS" -j "$THREADS" -T "$DUR" "${args[@]}" >"$out" 2>/dev/null; } 2>"$out.cpu"
	local tps fails
	tps=$(awk '/^tps = / { print $3; exit }' "$out")
	fails=$(awk '/number of failed transactions/ { print $5; exit }' "$out")
	read -r u s <"$out.cpu"
	echo "$tps $(echo "($u + $s) * 1000000 / ($tps * $DUR)" | bc -l) ${fails:-0}"
}
benchtui_run() { # workload
	local out="$TMP/out-$1-$RANDOM"
	{ time "${ON_CPU0[@]}" "$TMP/benchtui" run "$TMP/plan.yaml" -g "$1" -o "$out" >"$out.log" 2>&1; } 2>"$out.cpu" ||
		{ cat "$out.log" >&2; exit 1; }
	local rps errs
	read -r rps errs < <(jq -r '.steps[0] | "\(.throughput_rps) \(.errors)"' "$out"/"$1"-*.json)
	read -r u s <"$out.cpu"
	echo "$rps $(echo "($u + $s) * 1000000 / ($rps * $DUR)" | bc -l) $errs"
}

row() { # label workload pgbench pgbench-prepared benchtui (each "ops cpu"), errors
	printf '%-6s %-12s %9.0f %9.0f %9.0f %6.2f %6.2f %8.1f %8.1f %8.1f %s\n' "$1" "$2" "$3" "$5" "$7" \
		"$(echo "$7 / $3" | bc -l)" "$(echo "$7 / $5" | bc -l)" "$4" "$6" "$8" "${9:-}"
}
header() {
	printf '%-6s %-12s %9s %9s %9s %6s %6s %8s %8s %8s %s\n' "$1" workload pgb_simp pgb_prep benchtui \
		r_simp r_prep us_simp us_prep us_bt "${2:-}"
}
header rep errors
declare -A R
for rep in $(seq "$REPS"); do
	for w in select1 select-only; do
		read -r p pc pe < <(pgbench_run "$w" simple)
		read -r q qc qe < <(pgbench_run "$w" prepared)
		read -r b bc be < <(benchtui_run "$w")
		R[$w.p]+="$p " R[$w.pc]+="$pc " R[$w.q]+="$q " R[$w.qc]+="$qc " R[$w.b]+="$b " R[$w.bc]+="$bc "
		row "$rep" "$w" "$p" "$pc" "$q" "$qc" "$b" "$bc" "$pe/$qe/$be"
	done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo
echo "median of $REPS, $CLIENTS clients, ${DUR}s each, pinned: ${PIN:-no}, benchtui client: ${CLIENT:-pgx}, connection: ${CONNECTION:-default}, pipeline: ${PIPELINE:-off}; $("$BIN/postgres" --version); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
header median
for w in select1 select-only; do
	m=()
	for k in p pc q qc b bc; do m+=("$(echo "${R[$w.$k]}" | median)"); done
	row median "$w" "${m[@]}"
done
