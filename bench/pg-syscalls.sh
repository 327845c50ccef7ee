#!/usr/bin/env bash
# pg-syscalls.sh: system calls and context switches per query of pgbench
# -M prepared and of benchtui's postgres runner (connection: pool, per-worker,
# pool with pipeline: 8, client: epoll), SELECT 1, CLIENTS clients for DUR seconds
# each, counted by `perf stat` over the client process (its threads too)
# on one throwaway cluster.
#
#   bench/pg-syscalls.sh                  # DUR=5 CLIENTS=8
#
# Needs perf with the syscalls tracepoints (root), pgbench and jq.
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${DUR:-5} CLIENTS=${CLIENTS:-8} SCALE=${SCALE:-1}
command -v perf >/dev/null || { echo "no perf" >&2; exit 2; }
command -v jq >/dev/null || { echo "no jq: apt-get install jq" >&2; exit 2; }
. bench/pg-cluster.sh # sets TMP, DSN
echo 'SELECT 1;' >"$TMP/select1.sql"
go build -o "$TMP/benchtui" ./cmd/benchtui

EVENTS=syscalls:sys_enter_write,syscalls:sys_enter_read,syscalls:sys_enter_sendto,syscalls:sys_enter_recvfrom
EVENTS+=,syscalls:sys_enter_epoll_pwait,syscalls:sys_enter_epoll_pwait2,syscalls:sys_enter_poll,syscalls:sys_enter_ppoll,syscalls:sys_enter_futex
EVENTS+=,syscalls:sys_enter_nanosleep,context-switches
perfcount() { # out command...: perf's counts of the command into out.perf
	local out=$1
	shift
	perf stat -x, -e "$EVENTS" -o "$out.perf" -- "$@" >"$out.log" 2>&1
}
plan() { # keys: the postgres section's extra keys
	cat <<PLAN
version: 1
groups:
  - id: s1
    runner: postgres
    postgres: {dsn: "$DSN", statements: [{sql: "SELECT 1"}]$1}
    load: {concurrency: $CLIENTS}
    warmup: 0s
    duration: ${DUR}s
PLAN
}
printf '%-22s %9s' client queries
for e in write read sendto recvfrom epoll_pwait epoll_pwait2 poll ppoll futex nanosleep cs; do printf ' %11s' "$e"; done
echo
report() { # label queries perf-file
	printf '%-22s %9d' "$1" "$2"
	awk -F, -v n="$2" '$3 ~ /syscalls|context-switches/ { printf " %11.2f", $1 / n }' "$3"
	echo
}
out=$TMP/pgbench
perfcount "$out" pgbench -n -M prepared -c "$CLIENTS" -j 2 -T "$DUR" -f "$TMP/select1.sql"
report "pgbench -M prepared" "$(awk '/number of transactions actually processed/ { print $NF }' "$out.log" | cut -d/ -f1)" "$out.perf"
for mode in pool:"" per-worker:", connection: per-worker" pipeline-8:", pipeline: 8" epoll:", client: epoll"; do
	label=${mode%%:*}
	plan "${mode#*:}" >"$TMP/$label.yaml"
	out=$TMP/bt-$label
	perfcount "$out" "$TMP/benchtui" run "$TMP/$label.yaml" -o "$out.d"
	report "benchtui $label" "$(jq -r '.steps[0].requests' "$out.d"/s1-*.json)" "$out.perf"
done
