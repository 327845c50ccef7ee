#!/usr/bin/env bash
# pg-ab.sh: the postgres runner's in-process benchmarks at two revisions,
# interleaved on one throwaway cluster, compared with benchstat.
#
#   bench/pg-ab.sh main HEAD                      # BenchmarkEngineSelect1, 5 rounds
#   ROUNDS=8 BENCH='Workers' bench/pg-ab.sh c4b6d33 .   # "." is the working tree
#   OVERLAY=runners/pgload/bench_test.go OVERLAY_REV=9fc88a6 bench/pg-ab.sh c4b6d33 HEAD
#
# Each revision's test binary (go test -c of runners/pgload) is built from
# `git archive` of it (or from the working tree for "."); the rounds run
# A then B, one -count each, so that drift in the machine's load hits both
# alike. OVERLAY names files copied into both revisions (the same
# benchmark code on both sides), from revision OVERLAY_REV or else from
# the working tree. Both use
# BTPG_BENCH_DSN, a cluster this script starts (TCP on 127.0.0.1,
# pgbench tables at scale $SCALE for select-only). The figures
# to read are cpu-µs/op (this process's user + sys CPU per operation) and
# ops/s. Output: $OUT/a.txt, $OUT/b.txt and benchstat's table.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# = 2 ] || { echo "usage: $0 REV_A REV_B" >&2; exit 2; }
ROUNDS=${ROUNDS:-5} BENCH=${BENCH:-EngineSelect1} SCALE=${SCALE:-1} OUT=${OUT:-$(mktemp -d /tmp/btpgab.XXXXXX)}

mkdir -p "$OUT"
. bench/pg-cluster.sh # sets TMP, DSN

build() { # rev binary
	local src=.
	if [ "$1" != . ]; then
		src="$TMP/src-$(basename "$2")"
		mkdir -p "$src"
		git archive "$1" | tar -x -C "$src"
		for f in ${OVERLAY:-}; do
			if [ -n "${OVERLAY_REV:-}" ]; then git show "$OVERLAY_REV:$f" >"$src/$f"; else cp "$f" "$src/$f"; fi
		done
	fi
	(cd "$src" && go test -c -o "$2" ./runners/pgload)
}
build "$1" "$TMP/a.test"
build "$2" "$TMP/b.test"
: >"$OUT/a.txt"
: >"$OUT/b.txt"
for round in $(seq "$ROUNDS"); do
	for side in a b; do
		BTPG_BENCH_DSN=$DSN "$TMP/$side.test" -test.run '^$' -test.bench "$BENCH" -test.count 1 -test.benchmem |
			grep '^Benchmark' | tee -a "$OUT/$side.txt"
	done
	echo "round $round of $ROUNDS done; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done
echo "A=$1 B=$2, $ROUNDS interleaved rounds; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg); files in $OUT"
go run golang.org/x/perf/cmd/benchstat "A=$OUT/a.txt" "B=$OUT/b.txt"
